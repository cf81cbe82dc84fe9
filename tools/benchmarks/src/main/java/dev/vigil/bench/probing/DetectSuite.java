package dev.vigil.bench.probing;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Suite;
import dev.vigil.bench.outbox.Clocks;
import dev.vigil.bench.outbox.OutboxRun;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.MonitorConfig;
import dev.vigil.monitor.MonitorService;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
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
 * Time to detect: from the moment every target starts answering 503 until its FAILED is committed
 * to the outbox (the outbox row's {@code created_at}, the database's clock on this host). Targets
 * probe every 10 s with failureThreshold 3; half of them have {@code retryInterval} 2 s, so both
 * cases share one monitor, one failure instant and one load. The receiver path is not part of this
 * harness: add the e2e suite's commit → receiver time for the time to the receiver.
 */
public final class DetectSuite implements Suite {
  public static final String NAME = Cases.DETECT;
  private static final String DATABASE = "bench_detect";
  private static final Duration WAIT = Duration.ofSeconds(120);

  @Override
  public void run(BenchContext ctx) throws Exception {
    int count = ctx.options().quick() ? 100 : 1_000;
    DataSource db = ctx.infra().monitorDatabase(DATABASE, 2);
    try (TargetServer server = new TargetServer(count)) {
      List<TargetSpec> targets = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        TargetSpec.Builder target =
            TargetSpec.builder("t-" + i, TargetKind.HTTP)
                .url(URI.create(server.url(i)))
                .interval(Duration.ofSeconds(10))
                .timeout(Duration.ofSeconds(2))
                .connectTimeout(Duration.ofSeconds(1))
                .thresholds(3, 1);
        if (fast(i)) {
          target.retryInterval(Duration.ofSeconds(2));
        }
        targets.add(target.build());
      }
      ProbingSuite.store(db, targets);
      try (MonitorService monitor =
          MonitorService.start(new MonitorConfig(new Settings(env(ctx))))) {
        awaitAtLeast(
            db, "select count(distinct service) from check_history where status = 'UP'", count);
        long failedAt = Clocks.nowMicros();
        server.failAll();
        awaitAtLeast(db, "select count(*) from outbox where type = 'FAILED'", count);
        Map<Boolean, Histogram> detect = detectionTimes(db, failedAt);
        long missing = count - detect.get(true).getTotalCount() - detect.get(false).getTotalCount();
        ctx.addOneRun(
            NAME,
            Cases.detect(false),
            metrics(detect.get(false), count / 2, missing),
            "one run; failure → FAILED at the outbox; interval 10 s, failureThreshold 3");
        ctx.addOneRun(
            NAME,
            Cases.detect(true),
            metrics(detect.get(true), count - count / 2, missing),
            "same run and failure instant; retryInterval 2 s");
      }
    }
  }

  private static boolean fast(int target) {
    return target % 2 == 1;
  }

  private static Map<String, String> env(BenchContext ctx) {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", ctx.infra().jdbcUrl(DATABASE));
    env.put("VIGIL_DB_USER", "postgres");
    env.put("VIGIL_HTTP_PORT", "0");
    env.put("VIGIL_MONITOR_API_TOKEN", "bench-token");
    env.put("VIGIL_INSTANCE_ID", "bench-detect");
    return env;
  }

  /** Waits until {@code sql} counts at least {@code expected}, or gives up after a while. */
  private static void awaitAtLeast(DataSource db, String sql, long expected) throws SQLException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (count(db, sql) < expected && System.nanoTime() < deadline) {
      OutboxRun.sleep(200);
    }
  }

  private static long count(DataSource db, String sql) throws SQLException {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Detection times in µs by whether the target has a retry interval. */
  private static Map<Boolean, Histogram> detectionTimes(DataSource db, long failedAtMicros)
      throws SQLException {
    Map<Boolean, Histogram> byRetry = new HashMap<>();
    byRetry.put(true, new Histogram(3_600_000_000L, 3));
    byRetry.put(false, new Histogram(3_600_000_000L, 3));
    try (Connection c = db.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "select aggregateid, (extract(epoch from created_at) * 1000000)::bigint"
                    + " from outbox where type = 'FAILED'")) {
      while (rs.next()) {
        int target = Integer.parseInt(rs.getString(1).substring(2));
        byRetry.get(fast(target)).recordValue(Math.max(0, rs.getLong(2) - failedAtMicros));
      }
    }
    return byRetry;
  }

  private static Map<String, Double> metrics(Histogram h, int targets, long missing) {
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("targets", (double) targets);
    m.put("detected", (double) h.getTotalCount());
    m.put("missing_all_cases", (double) missing);
    m.put("detect_mean_s", h.getMean() / 1e6);
    m.put("detect_p50_s", h.getValueAtPercentile(50) / 1e6);
    m.put("detect_p99_s", h.getValueAtPercentile(99) / 1e6);
    m.put("detect_max_s", h.getMaxValue() / 1e6);
    return m;
  }
}
