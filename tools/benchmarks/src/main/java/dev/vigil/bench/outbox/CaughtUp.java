package dev.vigil.bench.outbox;

import java.time.Duration;

/** Waits until a relay has delivered everything committed before: a fresh row must arrive. */
public final class CaughtUp {
  private CaughtUp() {}

  /**
   * Commits one row at a time until one arrives through {@code watcher}, or throws after {@code
   * timeout}.
   */
  public static void await(OutboxWriters writers, AckWatcher watcher, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    watcher.reset();
    writers.commitMicros().clear();
    while (System.nanoTime() < deadline) {
      writers.runCount(1);
      long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
      while (System.nanoTime() < until) {
        watcher.check();
        if (watcher.arrivedCommittedBetween(0, Long.MAX_VALUE) > 0) {
          watcher.reset();
          writers.commitMicros().clear();
          return;
        }
        OutboxRun.sleep(10);
      }
    }
    throw new IllegalStateException("relay did not deliver a fresh row within " + timeout);
  }
}
