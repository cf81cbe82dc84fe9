package dev.vigil.harness;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Stopping embedded PostgreSQL servers for good, and the bounded polling the harness uses. */
public final class Postmasters {
  private static final Duration STOP_WAIT = Duration.ofSeconds(60);

  private Postmasters() {}

  /**
   * Stops {@code server} with a fast shutdown and waits until its postmaster has exited, so the
   * same data directory and port can be started again at once. The embedded server's close runs
   * {@code pg_ctl stop -m fast -t 5} and only logs "Could not stop postmaster" when that takes
   * longer, which a fast shutdown (checkpoint, walsenders sending their remaining WAL) did on a
   * loaded 2-core CI machine: a start right after then found the old server still running
   * (ResilienceIT, 2026-12-02). The postmaster removes {@code postmaster.pid} as it exits.
   */
  public static void stop(EmbeddedPostgres server, Path dataDir) throws IOException {
    server.close();
    Path pid = dataDir.resolve("postmaster.pid");
    awaitUntil("the postmaster of " + dataDir + " to exit", STOP_WAIT, () -> !Files.exists(pid));
  }

  /**
   * Polls {@code condition} until it holds.
   *
   * @throws IllegalStateException if it does not within {@code timeout}, or on interrupt
   */
  public static void awaitUntil(String what, Duration timeout, BooleanSupplier condition) {
    awaitUntil(what, timeout, Duration.ofMillis(50), condition);
  }

  /** {@link #awaitUntil(String, Duration, BooleanSupplier)}, polling every {@code poll}. */
  public static void awaitUntil(
      String what, Duration timeout, Duration poll, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("gave up waiting for " + what + " after " + timeout);
      }
      try {
        Thread.sleep(poll.toMillis()); // polling a condition, bounded by the deadline
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + what, e);
      }
    }
  }
}
