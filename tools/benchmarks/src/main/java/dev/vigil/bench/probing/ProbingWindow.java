package dev.vigil.bench.probing;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.CpuMeter;
import dev.vigil.bench.outbox.Clocks;
import dev.vigil.bench.outbox.OutboxRun;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.MonitorConfig;
import dev.vigil.monitor.MonitorService;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
    try (MonitorService monitor = MonitorService.start(new MonitorConfig(new Settings(env)))) {
      OutboxRun.sleep(warmup.toMillis());
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
      Map<String, Double> metricsAtEnd = MonitorMetrics.scrape(monitor.httpPort());
      double seconds = (to - from) / 1e6;
      Map<String, Double> m = new LinkedHashMap<>();
      m.put("jvm_cpu_cores", (CpuMeter.processCpuSeconds() - cpu0) / seconds);
      m.put(
          "pg_cpu_cores",
          (CpuMeter.postgresCpuSeconds(ctx.infra().postgresDataDir()) - pg0) / seconds);
      m.put("heap_max_mib", heapMax / 1048576.0);
      System.gc();
      m.put("heap_after_gc_mib", heapUsed() / 1048576.0);
      m.putAll(metricsAtEnd);
      return new ProbingWindow(from, to, m);
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
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("events_per_s", probes / seconds());
    m.put("expected_per_s", targets / 10.0);
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
