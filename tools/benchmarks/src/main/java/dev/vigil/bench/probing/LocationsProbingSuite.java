package dev.vigil.bench.probing;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Suite;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * Schedule lag and recorder throughput with every target probed from three locations (one monitor
 * instance per location, all in this JVM) against the same targets probed from one place, in the
 * same run: 10,000 HTTP targets every 10 s (1,000 with {@code --quick}). Each location's first due
 * time of a target is set to the target's own, so every arrival at the target server lies a whole
 * number of intervals plus its lag after it, whichever location sent it. {@code results_per_s} is
 * what the recorders wrote (check_history rows), against {@code expected_per_s}.
 */
public final class LocationsProbingSuite implements Suite {
  public static final String NAME = Cases.PROBING_LOCATIONS;
  static final List<String> LOCATIONS = List.of("eu-west", "us-east", "ap-south");
  private static final long INTERVAL_MICROS = 10_000_000L;

  @Override
  public void run(BenchContext ctx) throws Exception {
    int targets = ctx.options().quick() ? 1_000 : 10_000;
    measure(ctx, targets, List.of(), "bench_locations_1");
    measure(ctx, targets, LOCATIONS, "bench_locations_3");
  }

  private static void measure(BenchContext ctx, int count, List<String> locations, String database)
      throws Exception {
    DataSource db = ctx.infra().monitorDatabase(database, 2);
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
        if (!locations.isEmpty()) {
          target.locations(locations, null);
        }
        targets.add(target.build());
      }
      long[] firstDue = ProbingSuite.store(db, targets);
      if (!locations.isEmpty()) {
        alignLocations(db);
      }
      ProbingWindow run = ProbingWindow.measure(ctx, database, locations);
      Histogram lag = new Histogram(3_600_000_000L, 3);
      long probes = 0;
      for (int i = 0; i < count; i++) {
        for (long at : server.arrivals(i)) {
          if (at >= run.fromMicros() && at < run.toMicros()) {
            probes++;
            lag.recordValue(Math.floorMod(at - firstDue[i], INTERVAL_MICROS));
          }
        }
      }
      int places = Math.max(1, locations.size());
      ctx.addOneRun(
          NAME,
          Cases.probingLocations(places, count),
          run.withLag(probes, count, places, lag),
          "one run, "
              + (locations.isEmpty()
                  ? "one monitor instance"
                  : places + " monitor instances (one per location) in one JVM")
              + "; lag wraps at 10 s; monitor metrics of the first instance");
    }
  }

  /** Every location of a target is first due when the target itself is. */
  private static void alignLocations(DataSource db) throws SQLException {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate(
          "update location_schedule l set next_due_at = p.next_due_at"
              + " from probe_schedule p where p.target = l.target");
      s.execute("analyze location_schedule, location_state");
    }
  }
}
