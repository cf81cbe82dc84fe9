package dev.vigil.bench.outbox;

import java.time.Instant;

/** Wall-clock time in microseconds since the epoch, comparable with Kafka record timestamps. */
public final class Clocks {
  private Clocks() {}

  public static long nowMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }
}
