package dev.vigil.monitor.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertKind;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.kit.tracing.TraceParent;
import dev.vigil.monitor.MonitorConfig;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.MonitorService;
import dev.vigil.monitor.Tables;
import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.alert.ProbeStatus;
import dev.vigil.monitor.alert.ResultSource;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Push targets with a heartbeat, watched by two monitor instances on one database: a silent pusher
 * turns DOWN through the normal thresholds, each missed heartbeat is recorded once (never by both
 * instances), and a pusher that reports in time stays UP.
 */
@ExtendWith(VigilInfraExtension.class)
class HeartbeatIT {
  private static final Duration HEARTBEAT = Duration.ofSeconds(1);
  private static final int SILENT = 20;

  @Test
  void silentPushersTurnDownOncePerMissedHeartbeatAcrossTwoInstances(TestDatabase db)
      throws Exception {
    MonitorSchema.migrate(db.dataSource());
    TargetStore store = new TargetStore(db.dataSource());
    List<TargetSpec> silent =
        IntStream.range(0, SILENT)
            .mapToObj(i -> TargetSpec.push("cron-" + i).withHeartbeat(HEARTBEAT))
            .toList();
    store.upsertAll(silent, TargetStore.Source.API);
    store.add(TargetSpec.push("no-heartbeat"));

    try (MonitorService a = MonitorService.start(new MonitorConfig(new Settings(env(db, "a"))));
        MonitorService b = MonitorService.start(new MonitorConfig(new Settings(env(db, "b"))))) {
      await("every silent target opened an incident")
          .atMost(Duration.ofSeconds(60))
          .until(() -> failedServices(db) == SILENT);

      // Three missed heartbeats each, recorded by either instance: never two for one deadline,
      // which would show as two heartbeat results of one target less than a heartbeat apart.
      try (Connection connection = db.connect()) {
        assertThat(
                Tables.rows(
                        connection,
                        """
                    select service, recorded_at - lag(recorded_at) over w as gap
                      from check_history
                     where source = 'heartbeat'
                    window w as (partition by service order by id)
                    """)
                    .stream()
                    .filter(row -> !row.endsWith("null"))
                    .filter(row -> !row.matches(".* \\| 00:00:0[1-9].*|.* \\| 00:00:[1-5][0-9].*"))
                    .toList())
            .as("heartbeat results of one target less than one heartbeat apart")
            .isEmpty();
        assertThat(
                Tables.rows(
                    connection,
                    "select distinct error from check_history where source = 'heartbeat'"))
            .allMatch(error -> error.matches("no result for \\d+s \\(heartbeat 1s\\)"));
      }
      assertThat(
              Tables.count(
                  db.dataSource(),
                  "select count(*) from check_history where service = 'no-heartbeat'"))
          .isZero();

      // A pushed UP closes the incident like any result; the heartbeat deadline starts again.
      a.recorder()
          .record(
              new ProbeResult(
                  "cron-0", ProbeStatus.UP, null, null, null, null, ResultSource.PUSH, null));
      List<AlertEvent> events = events(db, "cron-0");
      assertThat(events)
          .extracting(AlertEvent::kind)
          .containsExactly(AlertKind.FAILED, AlertKind.RECOVERED);
      assertThat(events.get(0).lastError()).startsWith("no result for");
    }
    assertThat(Tables.count(db.dataSource(), "select count(*) from outbox where type = 'FAILED'"))
        .as("one FAILED per silent target, none twice")
        .isEqualTo(SILENT);
    // Each FAILED a missed heartbeat decided names that heartbeat's own span (a new trace).
    List<String> traces;
    try (Connection connection = db.connect()) {
      traces = Tables.rows(connection, "select traceparent from outbox where type = 'FAILED'");
    }
    assertThat(traces)
        .hasSize(SILENT)
        .allSatisfy(
            trace -> {
              assertThat(trace).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]");
              assertThat(TraceParent.parse(trace)).as(trace).isPresent();
            });
    assertThat(traces.stream().map(t -> TraceParent.parse(t).orElseThrow().traceId()))
        .as("a trace per missed heartbeat")
        .doesNotHaveDuplicates();
  }

  @Test
  void aPusherThatReportsWithinItsHeartbeatStaysUp(TestDatabase db) throws Exception {
    MonitorSchema.migrate(db.dataSource());
    ScheduledExecutorService pusher = Executors.newSingleThreadScheduledExecutor();
    try (MonitorService a = MonitorService.start(new MonitorConfig(new Settings(env(db, "a"))))) {
      // The deadline starts when the target is stored; the first result follows at once.
      a.targets().add(TargetSpec.push("steady").withHeartbeat(Duration.ofSeconds(2)));
      pushUp(a);
      pusher.scheduleWithFixedDelay(() -> pushUp(a), 200, 200, TimeUnit.MILLISECONDS);
      await("pushes recorded for longer than three heartbeats")
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  Tables.count(
                          db.dataSource(),
                          "select count(*) from check_history where service = 'steady'")
                      >= 25);
    } finally {
      pusher.shutdownNow();
    }
    assertThat(
            Tables.count(
                db.dataSource(), "select count(*) from check_history where source = 'heartbeat'"))
        .isZero();
  }

  private static void pushUp(MonitorService instance) {
    instance
        .recorder()
        .record(
            new ProbeResult(
                "steady", ProbeStatus.UP, null, null, null, null, ResultSource.PUSH, null));
  }

  private static long failedServices(TestDatabase db) {
    return Tables.count(
        db.dataSource(), "select count(distinct aggregateid) from outbox where type = 'FAILED'");
  }

  private static List<AlertEvent> events(TestDatabase db, String service) throws Exception {
    try (Connection connection = db.connect()) {
      return Tables.rows(
              connection,
              "select payload::text from outbox where aggregateid = '" + service + "' order by seq")
          .stream()
          .map(json -> AlertEventJson.read(json.getBytes(StandardCharsets.UTF_8)))
          .toList();
    }
  }

  private static Map<String, String> env(TestDatabase db, String instance) {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", db.jdbcUrl());
    env.put("VIGIL_DB_USER", db.user());
    env.put("VIGIL_DB_PASSWORD", db.password());
    env.put("VIGIL_HTTP_PORT", "0");
    env.put("VIGIL_MONITOR_API_TOKEN", "heartbeat-token");
    env.put("VIGIL_DB_POOL_SIZE", "4");
    env.put("VIGIL_INSTANCE_ID", instance);
    env.put("VIGIL_MONITOR_LEASE", "5s");
    env.put("VIGIL_MONITOR_CLAIM_POLL_INTERVAL", "50ms");
    env.put("VIGIL_MONITOR_HEARTBEAT_GRACE", "0s");
    return env;
  }
}
