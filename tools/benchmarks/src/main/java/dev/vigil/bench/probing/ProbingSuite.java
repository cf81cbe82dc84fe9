package dev.vigil.bench.probing;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.CpuMeter;
import dev.vigil.bench.Suite;
import dev.vigil.bench.outbox.Clocks;
import dev.vigil.bench.outbox.OutboxRun;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.MonitorConfig;
import dev.vigil.monitor.MonitorService;
import dev.vigil.monitor.target.TargetKind;
import dev.vigil.monitor.target.TargetSpec;
import dev.vigil.monitor.target.TargetStore;
import java.lang.management.ManagementFactory;
import java.net.URI;
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
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * 10,000 HTTP targets at a 10 s interval on one monitor instance (default settings). Schedule lag
 * of a probe = when its request reached the target server minus its due time; due times are the
 * first due time read from {@code probe_schedule} before the monitor starts plus whole intervals
 * (the scheduler moves due times on by whole intervals, so they do not drift).
 */
public final class ProbingSuite implements Suite {
  public static final String NAME = Cases.PROBING;
  public static final String CASE = Cases.PROBING_CASE;
  private static final int TARGETS = 10_000;
  private static final long INTERVAL_MICROS = 10_000_000L;

  @Override
  public void run(BenchContext ctx) throws Exception {
    DataSource db = ctx.infra().monitorDatabase("bench_probing", 2);
    Duration warmup = ctx.options().quick() ? Duration.ofSeconds(15) : Duration.ofSeconds(20);
    Duration window = ctx.options().quick() ? Duration.ofSeconds(10) : Duration.ofSeconds(30);
    try (TargetServer server = new TargetServer(TARGETS)) {
      List<TargetSpec> targets = new ArrayList<>();
      for (int i = 0; i < TARGETS; i++) {
        targets.add(
            TargetSpec.builder("t-" + i, TargetKind.HTTP)
                .url(URI.create(server.url(i)))
                .interval(Duration.ofSeconds(10))
                .timeout(Duration.ofSeconds(2))
                .connectTimeout(Duration.ofSeconds(1))
                .thresholds(3, 1)
                .build());
      }
      new TargetStore(db).upsertAll(targets, TargetStore.Source.API);
      // The first due times are spread over the next interval from now; move them past the
      // monitor's start so the measurement sees the steady state, not a start-up backlog.
      try (Connection c = db.getConnection();
          Statement s = c.createStatement()) {
        s.executeUpdate(
            "update probe_schedule set next_due_at = next_due_at + interval '10 seconds'");
      }
      long[] firstDue = firstDue(db);
      Map<String, String> env = new HashMap<>();
      env.put("VIGIL_DB_URL", ctx.infra().jdbcUrl("bench_probing"));
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
        double cpu = CpuMeter.processCpuSeconds() - cpu0;
        double pg = CpuMeter.postgresCpuSeconds(ctx.infra().postgresDataDir()) - pg0;
        double seconds = (to - from) / 1e6;
        Histogram lag = new Histogram(3_600_000_000L, 3);
        long probes = 0;
        for (int i = 0; i < TARGETS; i++) {
          for (long at : server.arrivals(i)) {
            if (at >= from && at < to) {
              probes++;
              lag.recordValue(Math.floorMod(at - firstDue[i], INTERVAL_MICROS));
            }
          }
        }
        System.gc();
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("events_per_s", probes / seconds);
        m.put("expected_per_s", TARGETS * 1e6 / INTERVAL_MICROS);
        m.put("lag_p50_ms", lag.getValueAtPercentile(50) / 1000.0);
        m.put("lag_p99_ms", lag.getValueAtPercentile(99) / 1000.0);
        m.put("lag_max_ms", lag.getMaxValue() / 1000.0);
        m.put("jvm_cpu_cores", cpu / seconds);
        m.put("pg_cpu_cores", pg / seconds);
        m.put("heap_max_mib", heapMax / 1048576.0);
        m.put("heap_after_gc_mib", heapUsed() / 1048576.0);
        m.putAll(metricsAtEnd);
        ctx.addOneRun(
            NAME,
            CASE,
            m,
            "one run; lag wraps at 10 s (a probe later than that shows as missing);"
                + " JVM CPU/heap include the target server and the idle broker");
      }
    }
  }

  private static long[] firstDue(DataSource db) throws SQLException {
    long[] due = new long[TARGETS];
    try (Connection c = db.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "select target, (extract(epoch from next_due_at) * 1000000)::bigint"
                    + " from probe_schedule")) {
      while (rs.next()) {
        due[Integer.parseInt(rs.getString(1).substring(2))] = rs.getLong(2);
      }
    }
    return due;
  }

  private static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
