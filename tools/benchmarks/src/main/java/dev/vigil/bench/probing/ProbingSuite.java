package dev.vigil.bench.probing;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Suite;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
      long[] firstDue = store(db, targets);
      ProbingWindow run = ProbingWindow.measure(ctx, "bench_probing");
      Histogram lag = new Histogram(3_600_000_000L, 3);
      long probes = 0;
      for (int i = 0; i < TARGETS; i++) {
        for (long at : server.arrivals(i)) {
          if (at >= run.fromMicros() && at < run.toMicros()) {
            probes++;
            lag.recordValue(Math.floorMod(at - firstDue[i], INTERVAL_MICROS));
          }
        }
      }
      ctx.addOneRun(
          NAME,
          CASE,
          run.withLag(probes, TARGETS, lag),
          "one run; lag wraps at 10 s (a probe later than that shows as missing);"
              + " JVM CPU/heap include the target server and the idle broker");
    }
  }

  /**
   * Stores {@code targets} (named {@code t-<index>}, every 10 s) and returns the first due time
   * (epoch µs) of each by index.
   */
  static long[] store(DataSource db, List<TargetSpec> targets) throws SQLException {
    new TargetStore(db).upsertAll(targets, TargetStore.Source.API);
    // The first due times are spread over the next interval from now; move them past the
    // monitor's start so the measurement sees the steady state, not a start-up backlog.
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate(
          "update probe_schedule set next_due_at = next_due_at + interval '10 seconds'");
      // Steady state has planner statistics (autovacuum analyzes within a minute or two of a bulk
      // load; the window ends before its first pass). Without them the claim statement walks
      // every target through a nested loop and sorts every due row (31,018 buffers per claim
      // instead of 995 at 10,000 targets): the one claimer falls behind in the first cycle and,
      // with recording capacity only just above the offered rate, never catches up.
      s.execute("analyze targets, probe_schedule, alert_state, health_status");
    }
    long[] due = new long[targets.size()];
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
}
