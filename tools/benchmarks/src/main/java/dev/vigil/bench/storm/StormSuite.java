package dev.vigil.bench.storm;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Suite;
import dev.vigil.bench.delivery.Notifier;
import dev.vigil.bench.delivery.WebhookReceiver;
import dev.vigil.bench.outbox.Clocks;
import dev.vigil.bench.outbox.OutboxRun;
import dev.vigil.bench.relay.VigilRelay;
import dev.vigil.monitor.MonitorService;
import dev.vigil.notifier.NotifierService;
import dev.vigil.relay.RelayService;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An incident storm: N HTTP targets (default 10,000, {@code -Dbench.storm.targets=N}) on one
 * monitor instance with default settings, all healthy, then all failing from the same instant, then
 * all healthy again; the real relay and notifier deliver the alerts to a local receiver. Per kind:
 * delay from each event's threshold crossing ({@code occurredAt}) to its first arrival, and from
 * the flip to the last arrival; missing events, duplicates and services whose events arrived out of
 * commit order.
 */
public final class StormSuite implements Suite {
  private static final Logger LOG = LoggerFactory.getLogger(StormSuite.class);
  private static final String DATABASE = "bench_storm";
  private static final String TOPIC = "bench.storm";

  private static final String UP_SQL = "select count(*) from health_status where status = 'UP'";

  /** SQL: the storm's alerts in commit order, with the occurredAt of their payload. */
  private static final String EVENTS_SQL =
      """
      select id, aggregateid, type,
             (extract(epoch from (payload ->> 'occurredAt')::timestamptz) * 1000000)::bigint,
             seq
        from outbox
       order by seq
      """;

  @Override
  public void run(BenchContext ctx) throws Exception {
    int targets = Integer.getInteger("bench.storm.targets", ctx.options().quick() ? 1_000 : 10_000);
    // The quick run probes every 2 s so three failures cross the threshold within a minute's run.
    Duration interval = Duration.ofSeconds(ctx.options().quick() ? 2 : 10);
    Duration phase = Duration.ofSeconds(ctx.options().quick() ? 120 : 600);
    DataSource db = ctx.infra().monitorDatabase(DATABASE, 4);
    ctx.infra().createTopic(TOPIC, PARTITIONS);
    try (StormTargets server = new StormTargets();
        WebhookReceiver receiver = new WebhookReceiver()) {
      StormStack.storeTargets(db, server, targets, interval);
      long[] flips = new long[2]; // when every target started failing, and recovering (epoch µs)
      try (RelayService relay = VigilRelay.start(ctx.infra(), DATABASE, TOPIC);
          NotifierService notifier =
              Notifier.start(
                  ctx.infra(), DATABASE + "_notifier", TOPIC, "bench-storm", receiver.url());
          MonitorService monitor = StormStack.startMonitor(ctx, DATABASE, "bench-storm-monitor")) {
        StormStack.awaitPhase("storm", "all up", phase, 250, () -> count(db, UP_SQL) >= targets);
        long failAt = Clocks.nowMicros();
        flips[0] = failAt;
        server.fail();
        LOG.info("storm: every target fails now targets={}", targets);
        StormStack.awaitPhase(
            "storm",
            "FAILED delivered",
            phase,
            250,
            () -> done(db, "FAILED", failAt, receiver, targets));
        long recoverAt = Clocks.nowMicros();
        flips[1] = recoverAt;
        server.recover();
        LOG.info("storm: every target recovers now targets={}", targets);
        StormStack.awaitPhase(
            "storm",
            "RECOVERED delivered",
            phase,
            250,
            () -> done(db, "RECOVERED", recoverAt, receiver, targets));
        OutboxRun.sleep(2_000); // a late duplicate would arrive now
      }
      List<StormEvent> all = events(db);
      // alerts of targets that flapped before the storm (a probe timing out on a loaded machine)
      // are checked for order and duplicates, but the delays are those of the storm's own alerts
      List<StormEvent> events = all.stream().filter(e -> e.occurredMicros() >= flips[0]).toList();
      long duplicates = receiver.requests() - receiver.distinct();
      long outOfOrder = StormStats.servicesOutOfOrder(all, receiver::order);
      String note =
          "%d targets every %d s, thresholds 3 down / 1 up, one run; delay from occurredAt;"
                  .formatted(targets, interval.toSeconds())
              + " duplicates and out-of-order counted over the whole storm";
      for (var kind : List.of("FAILED", "RECOVERED")) {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("targets", (double) targets);
        m.putAll(
            StormStats.delays(
                events,
                kind,
                receiver.firstArrival(),
                kind.equals("FAILED") ? flips[0] : flips[1]));
        m.put(
            "before_storm",
            (double) all.stream().filter(e -> e.kind().equals(kind)).count() - m.get("events"));
        m.put("duplicates", (double) duplicates);
        m.put("services_out_of_order", (double) outOfOrder);
        ctx.addOneRun(Cases.STORM, Cases.storm(kind), m, note);
      }
    }
  }

  /**
   * Whether every target has an event of {@code kind} that occurred after the flip at {@code
   * sinceMicros} and every event of that kind in the outbox (also one of a target that flapped
   * before the flip) reached the receiver.
   */
  private static boolean done(
      DataSource db, String kind, long sinceMicros, WebhookReceiver receiver, int targets) {
    List<StormEvent> ofKind = events(db).stream().filter(e -> e.kind().equals(kind)).toList();
    long services =
        ofKind.stream()
            .filter(e -> e.occurredMicros() >= sinceMicros)
            .map(StormEvent::service)
            .distinct()
            .count();
    return services >= targets
        && ofKind.stream().allMatch(e -> receiver.firstArrival().containsKey(e.id()));
  }

  /** The one number {@code sql} selects (a count), e.g. for waiting on a phase. */
  public static long count(DataSource db, String sql) {
    try (Connection c = db.getConnection();
        PreparedStatement s = c.prepareStatement(sql);
        ResultSet rs = s.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot count (" + sql + ")", e);
    }
  }

  static List<StormEvent> events(DataSource db) {
    List<StormEvent> events = new ArrayList<>();
    try (Connection c = db.getConnection();
        PreparedStatement s = c.prepareStatement(EVENTS_SQL);
        ResultSet rs = s.executeQuery()) {
      while (rs.next()) {
        events.add(
            new StormEvent(
                rs.getObject(1, UUID.class),
                rs.getString(2),
                rs.getString(3),
                rs.getLong(4),
                rs.getLong(5)));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("storm: cannot read the outbox", e);
    }
    return events;
  }
}
