package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertKind;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.probe.ProbeTargetServer;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two monitor instances on one database whose host clocks differ by 30 seconds: every result of
 * either is recorded (nothing is "stale" because of a clock), and the outbox is ordered by the
 * database, so a RECOVERED recorded by the instance that is behind still follows its FAILED.
 */
@ExtendWith(VigilInfraExtension.class)
class OneClockIT {
  private static final String TOKEN = "one-clock-token";
  private static final Duration SKEW = Duration.ofSeconds(30);

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void resultsOfInstancesWhoseClocksDifferBy30sAreAllRecordedInDatabaseOrder(TestDatabase db)
      throws Exception {
    MonitorSchema.migrate(db.dataSource());
    try (ProbeTargetServer server = new ProbeTargetServer(0)) {
      TargetStore store = new TargetStore(db.dataSource());
      store.add(httpTarget(server));
      store.add(TargetSpec.push("batch"));
      Clock behind = Clock.offset(Clock.systemUTC(), SKEW.negated());
      try (MonitorService ahead =
              MonitorService.start(new MonitorConfig(new Settings(env(db, "ahead"))));
          MonitorService late =
              MonitorService.start(new MonitorConfig(new Settings(env(db, "behind"))), behind)) {
        // Pushes alternate between the instances: DOWN, DOWN, DOWN (FAILED), then UP (RECOVERED)
        // through the instance whose clock is 30 s behind.
        List<MonitorService> order = List.of(ahead, late, ahead, late);
        for (int i = 0; i < order.size(); i++) {
          String body =
              i < 3 ? "{\"status\":\"DOWN\",\"error\":\"exit 1\"}" : "{\"status\":\"UP\"}";
          HttpResponse<String> response = push(order.get(i), body);
          assertThat(response.statusCode()).as("push %d: %s", i, response.body()).isEqualTo(200);
        }

        await("both instances probe 'web'")
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    hits(server, "ahead") >= 3
                        && hits(server, "behind") >= 3
                        && hits(server, "ahead") + hits(server, "behind") >= 10);
      }
      // Both stopped: every probe that reached the server has finished and been offered.
      assertThat(
              Tables.count(
                  db.dataSource(), "select count(*) from check_history where service = 'web'"))
          .as("every probe of either instance is recorded")
          .isEqualTo(server.hits().size());
    }

    List<AlertEvent> events = outbox(db);
    assertThat(events)
        .extracting(AlertEvent::kind)
        .containsExactly(AlertKind.FAILED, AlertKind.RECOVERED);
    AlertEvent failed = events.get(0);
    AlertEvent recovered = events.get(1);
    assertThat(recovered.incidentId()).isEqualTo(failed.incidentId());
    assertThat(recovered.occurredAt()).isAfterOrEqualTo(failed.occurredAt());
    assertThat(recovered.downtime()).isLessThan(SKEW);
    try (Connection connection = db.connect()) {
      assertThat(Tables.rows(connection, "select type from outbox order by created_at, seq"))
          .as("created_at (the database's clock) agrees with the commit order")
          .containsExactly("FAILED", "RECOVERED");
    }
  }

  private static long hits(ProbeTargetServer server, String instance) {
    return server.hits().stream().filter(h -> h.instance().equals(instance)).count();
  }

  private HttpResponse<String> push(MonitorService instance, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(
                URI.create(
                    "http://127.0.0.1:" + instance.httpPort() + "/api/services/batch/results"))
            .header("Authorization", "Bearer " + TOKEN)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static List<AlertEvent> outbox(TestDatabase db) throws Exception {
    try (Connection connection = db.connect()) {
      return Tables.rows(connection, "select payload::text from outbox order by seq").stream()
          .map(json -> AlertEventJson.read(json.getBytes(StandardCharsets.UTF_8)))
          .toList();
    }
  }

  private static TargetSpec httpTarget(ProbeTargetServer server) {
    return TargetSpec.builder("web", TargetKind.HTTP)
        .url(URI.create(server.url("web")))
        .interval(Duration.ofSeconds(1))
        .timeout(Duration.ofSeconds(1))
        .connectTimeout(Duration.ofMillis(500))
        .thresholds(100, 1)
        .build();
  }

  private static Map<String, String> env(TestDatabase db, String instance) {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", db.jdbcUrl());
    env.put("VIGIL_DB_USER", db.user());
    env.put("VIGIL_DB_PASSWORD", db.password());
    env.put("VIGIL_HTTP_PORT", "0");
    env.put("VIGIL_MONITOR_API_TOKEN", TOKEN);
    env.put("VIGIL_DB_POOL_SIZE", "4");
    env.put("VIGIL_INSTANCE_ID", instance);
    env.put("VIGIL_MONITOR_LEASE", "5s");
    env.put("VIGIL_MONITOR_CLAIM_POLL_INTERVAL", "50ms");
    return env;
  }
}
