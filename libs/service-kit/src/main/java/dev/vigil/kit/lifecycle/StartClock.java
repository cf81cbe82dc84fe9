package dev.vigil.kit.lifecycle;

import java.time.Duration;
import java.time.Instant;
import java.util.StringJoiner;

/**
 * Where a service's start-up time goes: the time of each named step since the previous one, and the
 * time since the process started (JVM boot and class loading before {@code main} included), as
 * {@code key=value} pairs for the one "started" log line. Not thread-safe: the starting thread
 * only.
 */
public final class StartClock {
  private final long started = System.nanoTime();
  private final StringJoiner steps = new StringJoiner(" ");
  private long last = started;

  /** Ends the step {@code name} (a log key without spaces) now. */
  public void step(String name) {
    long now = System.nanoTime();
    steps.add(name + "_ms=" + (now - last) / 1_000_000);
    last = now;
  }

  /**
   * The steps so far, the time since this clock was made, and the process's age ({@code
   * process_ms}, -1 when the OS does not tell the start instant).
   */
  public String summary() {
    long processMs =
        ProcessHandle.current()
            .info()
            .startInstant()
            .map(at -> Duration.between(at, Instant.now()).toMillis())
            .orElse(-1L);
    return steps
        + " start_ms="
        + (System.nanoTime() - started) / 1_000_000
        + " process_ms="
        + processMs;
  }
}
