package dev.vigil.bench.outbox;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.CpuWindow;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One measurement of outbox rows flowing from commit to Kafka: writers run for warm-up plus window;
 * only rows committed inside the window count for commit rate and latency, and only appends inside
 * the window for the delivered rate.
 */
public final class OutboxRun {
  private OutboxRun() {}

  /**
   * The database's commit limit: {@code writers} as fast as they can, no relay, commits only (see
   * {@link #measure}).
   */
  public static Map<String, Double> commitLimit(
      OutboxWriters writers, Duration warmup, Duration window, Path pgDataDir) {
    return measure(writers, null, warmup, window, 0, Duration.ZERO, pgDataDir);
  }

  /** {@link #commitLimit} with the run's warm-up and window, on the shared database. */
  public static Map<String, Double> commitLimit(OutboxWriters writers, BenchContext ctx) {
    return commitLimit(
        writers, ctx.options().warmup(), ctx.options().window(), ctx.infra().postgresDataDir());
  }

  /**
   * @param watcher null to measure commits only (the database-limit baseline)
   * @param ratePerSecond offered rate, 0 = writers as fast as they can
   * @param drainTimeout how long to wait after the writers stop for the window's rows to arrive
   * @return events_per_s (delivered, or committed without a watcher), commit_per_s, latency
   *     percentiles in ms (commit → Kafka append), seen_p99_ms (commit → consumer), undelivered
   */
  public static Map<String, Double> measure(
      OutboxWriters writers,
      AckWatcher watcher,
      Duration warmup,
      Duration window,
      double ratePerSecond,
      Duration drainTimeout,
      Path pgDataDir) {
    if (watcher != null) {
      watcher.reset();
    }
    writers.commitMicros().clear();
    long start = Clocks.nowMicros() + warmup.toNanos() / 1000;
    long end = start + window.toNanos() / 1000;
    double seconds = window.toNanos() / 1e9;
    long windowStart = System.nanoTime() + warmup.toNanos();
    CpuWindow cpu = CpuWindow.between(windowStart, windowStart + window.toNanos(), pgDataDir);
    long[] commits = writers.run(warmup.plus(window), ratePerSecond);
    cpu.await();
    long committed = OutboxWriters.countBetween(commits, start, end);
    Map<String, Double> m = new LinkedHashMap<>();
    if (ratePerSecond > 0) {
      m.put("offered_per_s", ratePerSecond);
    }
    if (watcher == null) {
      m.put("events_per_s", committed / seconds);
      m.put("commit_per_s", committed / seconds);
      m.put("jvm_cpu_cores", cpu.jvmCores());
      m.put("pg_cpu_cores", cpu.pgCores());
      return m;
    }
    long deadline = System.nanoTime() + drainTimeout.toNanos();
    while (watcher.arrivedCommittedBetween(start, end) < committed
        && System.nanoTime() < deadline) {
      watcher.check();
      sleep(50);
    }
    Arrivals arrivals = watcher.takeArrivals();
    writers.commitMicros().clear();
    long delivered = arrivals.committedBetween(start, end);
    Histogram ack = arrivals.ackLatency(start, end);
    Histogram seen = arrivals.seenLatency(start, end);
    m.put("events_per_s", arrivals.appendedBetween(start, end) / seconds);
    m.put("commit_per_s", committed / seconds);
    m.put("p50_ms", ms(ack, 50));
    m.put("p95_ms", ms(ack, 95));
    m.put("p99_ms", ms(ack, 99));
    m.put("max_ms", ack.getTotalCount() == 0 ? Double.NaN : ack.getMaxValue() / 1000.0);
    m.put("seen_p99_ms", ms(seen, 99));
    m.put("undelivered", (double) (committed - delivered));
    m.put("jvm_cpu_cores", cpu.jvmCores());
    m.put("pg_cpu_cores", cpu.pgCores());
    return m;
  }

  /**
   * CPU of this JVM and of PostgreSQL over {@code window} with no writes: what a relay costs while
   * the outbox is idle.
   */
  public static Map<String, Double> idle(Duration window, Path pgDataDir) {
    long start = System.nanoTime();
    CpuWindow cpu = CpuWindow.between(start, start + window.toNanos(), pgDataDir).await();
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("jvm_cpu_cores", cpu.jvmCores());
    m.put("pg_cpu_cores", cpu.pgCores());
    return m;
  }

  /**
   * Adds the commit limit measured just before a case (same writers, no relay) and the case's
   * delivered rate relative to it: pairing the two in time keeps disk and CPU noise from other
   * processes out of the ratio.
   */
  public static Map<String, Double> pairedWithLimit(
      Map<String, Double> limit, Map<String, Double> measured) {
    Map<String, Double> m = new LinkedHashMap<>(measured);
    double lim = limit.get("events_per_s");
    m.put("limit_per_s", lim);
    m.put("x_limit", measured.get("events_per_s") / lim);
    return m;
  }

  public static double ms(Histogram h, double percentile) {
    return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1000.0;
  }

  /** Paces a poll loop (never used to synchronise a test). */
  public static void sleep(long millis) {
    try {
      Thread.sleep(millis); // pacing a poll loop, not synchronising a test
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
