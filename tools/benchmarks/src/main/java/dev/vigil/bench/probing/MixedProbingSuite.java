package dev.vigil.bench.probing;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Suite;
import dev.vigil.monitor.targets.Checks;
import dev.vigil.monitor.targets.JsonExpectation;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * 10,000 mixed targets at a 10 s interval on one monitor instance (default settings): a third HTTP
 * with body conditions (contains and a JSON pointer, so every body is read and parsed), a third TCP
 * connects, a third DNS lookups of {@code localhost} (the JVM's resolver cache answers most of
 * them, as it would in production). Schedule lag of a probe = its recorded start ({@code
 * check_history.started_at}, the monitor's clock, which is this JVM's) minus its due time, as in
 * {@link ProbingSuite}. {@code -Dbench.probing.targets=N} runs a reduced size on a busy machine.
 */
public final class MixedProbingSuite implements Suite {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(MixedProbingSuite.class);
  public static final String NAME = Cases.PROBING_MIXED;
  public static final String CASE = Cases.PROBING_MIXED_CASE;
  private static final long INTERVAL_MICROS = 10_000_000L;

  private static final String STARTS =
      """
      select service, (extract(epoch from started_at) * 1000000)::bigint
        from check_history
       where started_at >= to_timestamp(? / 1000000.0) and started_at < to_timestamp(? / 1000000.0)
      """;

  private static final String DOWN =
      """
      select error, count(*)
        from check_history
       where status = 'DOWN'
         and started_at >= to_timestamp(? / 1000000.0) and started_at < to_timestamp(? / 1000000.0)
       group by error
       order by count(*) desc
       limit 5
      """;

  @Override
  public void run(BenchContext ctx) throws Exception {
    int count = Integer.getInteger("bench.probing.targets", 10_000);
    DataSource db = ctx.infra().monitorDatabase("bench_probing_mixed", 2);
    try (TargetServer server = new TargetServer(count, "{\"status\":\"ok\",\"checks\":[]}");
        TcpAcceptor tcp = new TcpAcceptor()) {
      List<TargetSpec> targets = new ArrayList<>();
      Checks body =
          new Checks(
              Map.of(),
              null,
              Duration.ofSeconds(2),
              List.of("\"status\""),
              List.of("error"),
              List.of(new JsonExpectation(JsonPointer.compile("/status"), TextNode.valueOf("ok"))),
              null,
              List.of());
      for (int i = 0; i < count; i++) {
        TargetSpec.Builder target =
            switch (i % 3) {
              case 0 ->
                  TargetSpec.builder("t-" + i, TargetKind.HTTP)
                      .url(URI.create(server.url(i)))
                      .checks(body);
              case 1 -> TargetSpec.builder("t-" + i, TargetKind.TCP).url(URI.create(tcp.url()));
              default ->
                  TargetSpec.builder("t-" + i, TargetKind.DNS).url(URI.create("dns://localhost"));
            };
        targets.add(
            target
                .interval(Duration.ofSeconds(10))
                .timeout(Duration.ofSeconds(2))
                .connectTimeout(Duration.ofSeconds(1))
                .thresholds(3, 1)
                .build());
      }
      long[] firstDue = ProbingSuite.store(db, targets);
      ProbingWindow run = ProbingWindow.measure(ctx, "bench_probing_mixed");
      Histogram lag = new Histogram(3_600_000_000L, 3);
      long[] byKind = new long[3];
      long down = 0;
      try (Connection c = db.getConnection();
          PreparedStatement statement = c.prepareStatement(STARTS)) {
        statement.setLong(1, run.fromMicros());
        statement.setLong(2, run.toMicros());
        try (ResultSet rs = statement.executeQuery()) {
          while (rs.next()) {
            int index = Integer.parseInt(rs.getString(1).substring(2));
            byKind[index % 3]++;
            lag.recordValue(Math.floorMod(rs.getLong(2) - firstDue[index], INTERVAL_MICROS));
          }
        }
        down = downResults(c, run);
      }
      long probes = byKind[0] + byKind[1] + byKind[2];
      Map<String, Double> m = new LinkedHashMap<>(run.withLag(probes, count, lag));
      m.put("targets", (double) count);
      m.put("http_per_s", byKind[0] / run.seconds());
      m.put("tcp_per_s", byKind[1] / run.seconds());
      m.put("dns_per_s", byKind[2] / run.seconds());
      m.put("down_results", (double) down);
      ctx.addOneRun(
          NAME,
          CASE,
          m,
          "one run of "
              + count
              + " targets; lag from the recorded probe start (wraps at 10 s);"
              + " JVM CPU/heap include the target servers and the idle broker");
    }
  }

  /** DOWN results in the window (all targets answer, so each is the machine's doing), logged. */
  private static long downResults(Connection c, ProbingWindow run) throws SQLException {
    long down = 0;
    try (PreparedStatement statement = c.prepareStatement(DOWN)) {
      statement.setLong(1, run.fromMicros());
      statement.setLong(2, run.toMicros());
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          down += rs.getLong(2);
          LOG.info("down results count={} error={}", rs.getLong(2), rs.getString(1));
        }
      }
    }
    return down;
  }
}
