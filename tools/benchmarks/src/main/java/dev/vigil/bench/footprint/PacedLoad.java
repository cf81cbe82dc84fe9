package dev.vigil.bench.footprint;

import dev.vigil.bench.outbox.OutboxWriters;
import dev.vigil.bench.storm.StormSuite;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Outbox rows at 1,000/s until closed, in two-second rounds of {@link OutboxWriters} (each round
 * paces its own rows, so the load lasts exactly as long as the phase that needs it instead of a
 * duration guessed up front, which could run out before the window on a slow machine).
 */
final class PacedLoad implements AutoCloseable {
  static final double RATE = 1_000;
  private static final Duration ROUND = Duration.ofSeconds(2);

  private final OutboxWriters writers;
  private final Thread thread;
  private volatile boolean stopped;

  private PacedLoad(OutboxWriters writers) {
    this.writers = writers;
    this.thread = Thread.ofPlatform().name("footprint-writers").unstarted(this::loop);
  }

  static PacedLoad start(OutboxWriters writers) {
    PacedLoad load = new PacedLoad(writers);
    load.thread.start();
    return load;
  }

  private void loop() {
    while (!stopped) {
      writers.run(ROUND, RATE);
    }
  }

  /** Rows committed so far. */
  long committed() {
    return writers.committed();
  }

  /**
   * Waits until {@code countSql} on {@code db} grows (the rows flow end to end).
   *
   * @throws IllegalStateException when it does not grow within {@code limit}
   */
  static void awaitGrowth(DataSource db, String countSql, Duration limit) {
    long first = StormSuite.count(db, countSql);
    long deadline = System.nanoTime() + limit.toNanos();
    while (StormSuite.count(db, countSql) == first) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "nothing arrived within " + limit.toSeconds() + " s (" + countSql + ")");
      }
      ServiceProcess.pause(200);
    }
  }

  /**
   * Waits until {@code countSql} on {@code db} grows at least {@code share} of {@code rate} over
   * one second (the pipeline has warmed up and keeps pace with the load), at most {@code limit}.
   *
   * @return seconds waited, or -1 when it did not keep pace within {@code limit} (the window is
   *     then measured anyway and shows the rate it reached)
   */
  static double awaitPace(
      DataSource db, String countSql, double rate, double share, Duration limit) {
    long start = System.nanoTime();
    long deadline = start + limit.toNanos();
    long before = StormSuite.count(db, countSql);
    long at = System.nanoTime();
    while (System.nanoTime() < deadline) {
      ServiceProcess.pause(1_000);
      long now = StormSuite.count(db, countSql);
      long t = System.nanoTime();
      if ((now - before) / ((t - at) / 1e9) >= share * rate) {
        return (t - start) / 1e9;
      }
      before = now;
      at = t;
    }
    return -1;
  }

  /** Stops after the current round and waits for it. */
  @Override
  public void close() {
    stopped = true;
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted stopping the writers", e);
    }
  }
}
