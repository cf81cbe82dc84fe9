package dev.vigil.bench.probing;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.CpuMeter;
import dev.vigil.bench.outbox.Clocks;
import dev.vigil.bench.outbox.OutboxRun;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.MonitorConfig;
import dev.vigil.monitor.MonitorService;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One monitor instance (default settings) probing the targets stored in {@code database}: warm-up,
 * then a measurement window with the CPU of this JVM and of PostgreSQL, the heap, and the monitor's
 * metrics at the end.
 *
 * @param fromMicros start of the window (epoch µs)
 * @param toMicros end of the window (epoch µs)
 * @param metrics CPU, heap and monitor metrics over the window
 */
record ProbingWindow(long fromMicros, long toMicros, Map<String, Double> metrics) {

  static ProbingWindow measure(BenchContext ctx, String database) throws Exception {
    return measure(ctx, database, List.of());
  }

  /**
   * As {@link #measure(BenchContext, String)} with one monitor instance per location in this JVM
   * ({@code VIGIL_MONITOR_LOCATION}), or one default instance when {@code locations} is empty. The
   * monitor metrics are those of the first instance; {@code results_per_s} counts the results every
   * instance recorded (check_history rows) over the window.
   */
  static ProbingWindow measure(BenchContext ctx, String database, List<String> locations)
      throws Exception {
    Duration warmup = ctx.options().quick() ? Duration.ofSeconds(15) : Duration.ofSeconds(20);
    Duration window = ctx.options().quick() ? Duration.ofSeconds(10) : Duration.ofSeconds(30);
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", ctx.infra().jdbcUrl(database));
    env.put("VIGIL_DB_USER", "postgres");
    env.put("VIGIL_HTTP_PORT", "0");
    env.put("VIGIL_MONITOR_API_TOKEN", "bench-token");
    env.put("VIGIL_INSTANCE_ID", "bench-monitor");
    // Default settings; -Dbench.probing.pool=N only for experiments on the bottleneck.
    String pool = System.getProperty("bench.probing.pool");
    if (pool != null) {
      env.put("VIGIL_DB_POOL_SIZE", pool);
    }
    List<MonitorService> monitors = new ArrayList<>();
    try {
      if (locations.isEmpty()) {
        monitors.add(MonitorService.start(new MonitorConfig(new Settings(env))));
      }
      for (String location : locations) {
        Map<String, String> located = new HashMap<>(env);
        located.put("VIGIL_MONITOR_LOCATION", location);
        located.put("VIGIL_INSTANCE_ID", "bench-monitor-" + location);
        monitors.add(MonitorService.start(new MonitorConfig(new Settings(located))));
      }
      MonitorService monitor = monitors.getFirst();
      OutboxRun.sleep(warmup.toMillis());
      long results0 = lastResultId(ctx, database);
      long from = Clocks.nowMicros();
      double cpu0 = CpuMeter.processCpuSeconds();
      double pg0 = CpuMeter.postgresCpuSeconds(ctx.infra().postgresDataDir());
      long heapMax = 0;
      long until = System.nanoTime() + window.toNanos();
      while (System.nanoTime() < until) {
        heapMax = Math.max(heapMax, heapUsed());
        OutboxRun.sleep(250);
      }
      long to = Clocks.nowMicros();
      long results = lastResultId(ctx, database) - results0;
      Map<String, Double> metricsAtEnd = MonitorMetrics.scrape(monitor.httpPort());
      double seconds = (to - from) / 1e6;
      Map<String, Double> m = new LinkedHashMap<>();
      m.put("results_per_s", results / seconds);
      m.put("jvm_cpu_cores", (CpuMeter.processCpuSeconds() - cpu0) / seconds);
      m.put(
          "pg_cpu_cores",
          (CpuMeter.postgresCpuSeconds(ctx.infra().postgresDataDir()) - pg0) / seconds);
      m.put("heap_max_mib", heapMax / 1048576.0);
      System.gc();
      m.put("heap_after_gc_mib", heapUsed() / 1048576.0);
      m.putAll(metricsAtEnd);
      return new ProbingWindow(from, to, m);
    } finally {
      for (MonitorService monitor : monitors.reversed()) {
        monitor.close();
      }
    }
  }

  /** The id of the latest check_history row (ids only grow): results recorded so far. */
  private static long lastResultId(BenchContext ctx, String database) throws SQLException {
    try (Connection c =
            java.sql.DriverManager.getConnection(ctx.infra().jdbcUrl(database), "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select coalesce(max(id), 0) from check_history")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  double seconds() {
    return (toMicros - fromMicros) / 1e6;
  }

  /**
   * Probes per second over the window, the rate {@code targets} at a 10 s interval should reach,
   * and the schedule lag percentiles, followed by the window's own metrics.
   */
  Map<String, Double> withLag(long probes, int targets, org.HdrHistogram.Histogram lag) {
    return withLag(probes, targets, 1, lag);
  }

  /**
   * As {@link #withLag(long, int, org.HdrHistogram.Histogram)} for targets probed from {@code
   * locations} each.
   */
  Map<String, Double> withLag(
      long probes, int targets, int locations, org.HdrHistogram.Histogram lag) {
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("events_per_s", probes / seconds());
    m.put("expected_per_s", targets * locations / 10.0);
    m.put("lag_p50_ms", lag.getValueAtPercentile(50) / 1000.0);
    m.put("lag_p99_ms", lag.getValueAtPercentile(99) / 1000.0);
    m.put("lag_max_ms", lag.getMaxValue() / 1000.0);
    m.putAll(metrics);
    return m;
  }

  private static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
