package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertKind;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Settings;
import dev.vigil.kit.tracing.TraceParent;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(VigilInfraExtension.class)
class HttpApiIT {
  private static final String TOKEN = TestMonitor.TOKEN;
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private TestDatabase db;
  private MonitorService service;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void start(TestDatabase db) {
    this.db = db;
    service = MonitorService.start(new MonitorConfig(new Settings(settings(db, null))));
  }

  @AfterEach
  void stop() {
    if (service != null) {
      service.close();
    }
    http.close();
  }

  @Test
  void pushedResultsGoThroughTheRecorderAndShowInServicesHistoryAndIncidents() throws Exception {
    assertThat(
            send("POST", "/api/targets", "{\"name\":\"Batch\",\"type\":\"push\"}", TOKEN)
                .statusCode())
        .isEqualTo(201);
    Instant start =
        Instant.now().minusSeconds(60).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    JsonNode third = null;
    // The pusher's trace context: an invalid one (upper-case hex) is ignored, never refused; the
    // valid one of the push that decides FAILED is continued by the span written with the event.
    String pusherTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
    String[] traceparents = {
      "00-" + pusherTrace.toUpperCase() + "-00f067aa0ba902b7-01",
      null,
      "00-" + pusherTrace + "-00f067aa0ba902b7-01"
    };
    for (int i = 0; i < 3; i++) {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(
                  URI.create(
                      "http://127.0.0.1:" + service.httpPort() + "/api/services/batch/results"))
              .header("Authorization", "Bearer " + TOKEN)
              .POST(
                  HttpRequest.BodyPublishers.ofString(
                      "{\"status\":\"DOWN\",\"error\":\"exit 1\",\"startedAt\":\""
                          + start.plusSeconds(i)
                          + "\"}"));
      if (traceparents[i] != null) {
        request.header("traceparent", traceparents[i]);
      }
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      third = JSON.readTree(response.body());
    }
    assertThat(third.at("/event/kind").asText()).isEqualTo("FAILED");
    String written =
        Tables.text(db.dataSource(), "select traceparent from outbox where aggregateid = 'batch'");
    assertThat(written)
        .startsWith("00-" + pusherTrace + "-")
        .doesNotContain("00f067aa0ba902b7")
        .endsWith("-01");

    JsonNode services = get("/api/services");
    assertThat(services.at("/services/0/service").asText()).isEqualTo("batch");
    assertThat(services.at("/services/0/state").asText()).isEqualTo("DOWN");
    assertThat(services.at("/services/0/consecutiveFailures").asInt()).isEqualTo(3);
    assertThat(services.at("/services/0/openIncident/incidentId").asText())
        .isEqualTo(third.at("/event/incidentId").asText());
    assertThat(services.at("/services/0/lastCheck/error").asText()).isEqualTo("exit 1");

    JsonNode page = get("/api/services/batch/history?limit=2");
    assertThat(page.get("items")).hasSize(2);
    JsonNode rest =
        get("/api/services/batch/history?limit=2&before=" + page.get("nextBefore").asLong());
    assertThat(rest.get("items")).hasSize(1);
    assertThat(rest.at("/items/0/startedAt").asText()).isEqualTo(start.toString());

    JsonNode open = get("/api/incidents?state=open");
    assertThat(open.get("incidents")).hasSize(1);
    assertThat(open.at("/incidents/0/firstError").asText()).isEqualTo("exit 1");
    assertThat(open.at("/incidents/0/probeCount").asInt()).isEqualTo(3);
    assertThat(get("/api/incidents?state=closed").get("incidents")).isEmpty();
    assertThat(Tables.count(db.dataSource(), "select count(*) from outbox")).isEqualTo(1);
  }

  @Test
  void mutatingCallsNeedTheBearerTokenAndWriteNothingWithoutIt() throws Exception {
    Map<String, List<String>> before = Tables.snapshot(db.dataSource());
    HttpResponse<String> missing =
        send("POST", "/api/targets", "{\"name\":\"x\",\"type\":\"push\"}", null);
    HttpResponse<String> wrong =
        send("POST", "/api/targets", "{\"name\":\"x\",\"type\":\"push\"}", "nope-nope-nope");
    assertThat(missing.statusCode()).isEqualTo(401);
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(wrong.body()).doesNotContain(TOKEN);
    assertThat(Tables.snapshot(db.dataSource())).isEqualTo(before);
  }

  @Test
  void invalidBodiesAreRefusedNamingFieldAndReasonAndWriteNothing() throws Exception {
    send("POST", "/api/targets", "{\"name\":\"batch\",\"type\":\"push\"}", TOKEN);
    Map<String, List<String>> before = Tables.snapshot(db.dataSource());

    assertBadRequest(
        send(
            "POST",
            "/api/targets",
            "{\"name\":\"web\",\"url\":\"http://x/\",\"interval\":\"fast\"}",
            TOKEN),
        "interval");
    assertBadRequest(send("POST", "/api/targets", "{\"url\":\"http://x/\"}", TOKEN), "name");
    assertBadRequest(send("POST", "/api/targets", "not json", TOKEN), "body");
    assertBadRequest(
        send("PUT", "/api/targets/batch", "{\"type\":\"push\",\"failureThreshold\":-1}", TOKEN),
        "failureThreshold");
    assertBadRequest(
        send("POST", "/api/services/batch/results", "{\"status\":\"MAYBE\"}", TOKEN), "status");
    assertBadRequest(
        send(
            "POST",
            "/api/services/batch/results",
            "{\"status\":\"UP\",\"startedAt\":\"yesterday\"}",
            TOKEN),
        "startedAt");
    assertBadRequest(
        send(
            "POST", "/api/services/batch/results", "{\"status\":\"UP\",\"colour\":\"red\"}", TOKEN),
        "colour");

    assertThat(Tables.snapshot(db.dataSource())).isEqualTo(before);
  }

  @Test
  void unknownServiceIs404AndWritesNothing() throws Exception {
    Map<String, List<String>> before = Tables.snapshot(db.dataSource());
    assertThat(send("GET", "/api/services/ghost", null, null).statusCode()).isEqualTo(404);
    assertThat(send("GET", "/api/services/ghost/history", null, null).statusCode()).isEqualTo(404);
    assertThat(
            send("POST", "/api/services/ghost/results", "{\"status\":\"UP\"}", TOKEN).statusCode())
        .isEqualTo(404);
    assertThat(send("PUT", "/api/targets/ghost", "{\"type\":\"push\"}", TOKEN).statusCode())
        .isEqualTo(404);
    assertThat(send("POST", "/api/targets/ghost/disable", "", TOKEN).statusCode()).isEqualTo(404);
    assertThat(Tables.snapshot(db.dataSource())).isEqualTo(before);
  }

  @Test
  void stalePushIsRejectedAndDisabledTargetRefusesPushes() throws Exception {
    send("POST", "/api/targets", "{\"name\":\"batch\",\"type\":\"push\"}", TOKEN);
    Instant now = Instant.now();
    assertThat(push("batch", "UP", now).statusCode()).isEqualTo(200);
    Map<String, List<String>> before = Tables.snapshot(db.dataSource());
    HttpResponse<String> stale = push("batch", "DOWN", now.minusSeconds(5));
    assertThat(stale.statusCode()).isEqualTo(409);
    assertThat(stale.body()).contains("stale");
    assertThat(Tables.snapshot(db.dataSource())).isEqualTo(before);

    assertThat(send("POST", "/api/targets/batch/disable", "", TOKEN).statusCode()).isEqualTo(200);
    assertThat(push("batch", "DOWN", now.plusSeconds(1)).statusCode()).isEqualTo(409);
    assertThat(Tables.count(db.dataSource(), "select count(*) from check_history")).isEqualTo(1);
  }

  @Test
  void targetsCanBeAddedUpdatedAndDisabled() throws Exception {
    assertThat(
            send(
                    "POST",
                    "/api/targets",
                    "{\"name\":\"web\",\"url\":\"http://u:pw@127.0.0.1:1/h\",\"interval\":\"30s\"}",
                    TOKEN)
                .statusCode())
        .isEqualTo(201);
    assertThat(
            send(
                    "POST",
                    "/api/targets",
                    "{\"name\":\"web\",\"url\":\"http://127.0.0.1:1/h\"}",
                    TOKEN)
                .statusCode())
        .isEqualTo(409);
    assertThat(
            send(
                    "PUT",
                    "/api/targets/web",
                    "{\"url\":\"http://127.0.0.1:2/h\",\"failureThreshold\":5,\"enabled\":false}",
                    TOKEN)
                .statusCode())
        .isEqualTo(200);
    JsonNode web = get("/api/targets/web");
    assertThat(web.get("url").asText()).isEqualTo("http://127.0.0.1:2/h");
    assertThat(web.get("failureThreshold").asInt()).isEqualTo(5);
    assertThat(web.get("enabled").asBoolean()).isFalse();
    assertThat(send("POST", "/api/targets/web/enable", "", TOKEN).statusCode()).isEqualTo(200);
    assertThat(get("/api/targets/web").get("enabled").asBoolean()).isTrue();
  }

  @Test
  void pushedErrorWithNulOrOtherControlCharactersIs400NamingTheFieldAndWritesNothing()
      throws Exception {
    send("POST", "/api/targets", "{\"name\":\"batch\",\"type\":\"push\"}", TOKEN);
    Map<String, List<String>> before = Tables.snapshot(db.dataSource());

    for (String error :
        List.of("a\\u0000b", "bell\\u0007", "esc\\u001b[31m", "c1\\u0085", "\\ud800x")) {
      HttpResponse<String> response =
          send(
              "POST",
              "/api/services/batch/results",
              "{\"status\":\"DOWN\",\"error\":\"" + error + "\"}",
              TOKEN);
      assertBadRequest(response, "error");
    }
    assertBadRequest(
        send(
            "POST",
            "/api/services/batch/results",
            "{\"status\":\"UP\",\"startedAt\":12345}",
            TOKEN),
        "startedAt");
    assertThat(Tables.snapshot(db.dataSource())).isEqualTo(before);

    HttpResponse<String> multiLine =
        send(
            "POST",
            "/api/services/batch/results",
            "{\"status\":\"DOWN\",\"error\":\"line 1\\n\\tline 2 \\ud83d\\ude00\"}",
            TOKEN);
    assertThat(multiLine.statusCode()).as(multiLine.body()).isEqualTo(200);
  }

  @Test
  void targetReadsNeedTheTokenAndRedactCredentialsInUrls() throws Exception {
    HttpResponse<String> created =
        send(
            "POST",
            "/api/targets",
            "{\"name\":\"web\",\"url\":\"https://user:pw@example.test:8443/health?token=s3cr3t&x=1&bare#frag\"}",
            TOKEN);
    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(created.body()).doesNotContain("s3cr3t", "pw@", "bare", "frag");

    for (String path : List.of("/api/targets", "/api/targets/web")) {
      HttpResponse<String> anonymous = send("GET", path, null, null);
      assertThat(anonymous.statusCode()).as(path).isEqualTo(401);
      assertThat(anonymous.body()).doesNotContain("example.test");
      assertThat(send("GET", path, null, "wrong-token-123").statusCode()).isEqualTo(401);
    }
    String redacted =
        "https://<redacted>@example.test:8443/health?token=<redacted>&x=<redacted>&<redacted>#<redacted>";
    assertThat(get("/api/targets").at("/targets/0/url").asText()).isEqualTo(redacted);
    assertThat(get("/api/targets/web").get("url").asText()).isEqualTo(redacted);
    assertThat(send("GET", "/api/targets", null, TOKEN).body()).doesNotContain("s3cr3t", "pw");
  }

  @Test
  void disablingATargetWithAnOpenIncidentClosesItWithAResolvedRecovered() throws Exception {
    send("POST", "/api/targets", "{\"name\":\"batch\",\"type\":\"push\"}", TOKEN);
    String failedIncident = openIncidentByPushes("batch");

    HttpResponse<String> disabled = send("POST", "/api/targets/batch/disable", "", TOKEN);

    assertThat(disabled.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(disabled.body()).at("/closedIncident/resolution").asText())
        .isEqualTo("target disabled");
    List<AlertEvent> events = outbox();
    assertThat(events)
        .extracting(AlertEvent::kind)
        .containsExactly(AlertKind.FAILED, AlertKind.RECOVERED);
    AlertEvent recovered = events.get(1);
    assertThat(recovered.incidentId().toString()).isEqualTo(failedIncident);
    assertThat(recovered.resolution()).isEqualTo(AlertEvent.RESOLUTION_TARGET_DISABLED);
    assertThat(recovered.consecutiveFailures()).isEqualTo(3);
    assertThat(events.get(0).resolution()).isNull();
    assertRecoveredStartsATraceOfItsOwn();
    assertThat(get("/api/incidents?state=open").get("incidents")).isEmpty();
    assertThat(get("/api/services/batch").has("openIncident")).isFalse();

    // Disabling again, or re-enabling and disabling without an incident, writes no event.
    assertThat(send("POST", "/api/targets/batch/disable", "", TOKEN).statusCode()).isEqualTo(200);
    assertThat(send("POST", "/api/targets/batch/enable", "", TOKEN).statusCode()).isEqualTo(200);
    assertThat(send("POST", "/api/targets/batch/disable", "", TOKEN).statusCode()).isEqualTo(200);
    assertThat(outbox()).hasSize(2);
  }

  @Test
  void disablingThroughAnUpdateAlsoClosesTheIncident() throws Exception {
    send("POST", "/api/targets", "{\"name\":\"batch\",\"type\":\"push\"}", TOKEN);
    openIncidentByPushes("batch");

    assertThat(
            send("PUT", "/api/targets/batch", "{\"type\":\"push\",\"enabled\":false}", TOKEN)
                .statusCode())
        .isEqualTo(200);

    assertThat(outbox())
        .extracting(AlertEvent::resolution)
        .containsExactly(null, "target disabled");
  }

  @Test
  void deletingATargetWithAnOpenIncidentClosesItThenRemovesTheTarget() throws Exception {
    send("POST", "/api/targets", "{\"name\":\"batch\",\"type\":\"push\"}", TOKEN);
    String incident = openIncidentByPushes("batch");

    assertThat(send("DELETE", "/api/targets/batch", null, null).statusCode()).isEqualTo(401);
    HttpResponse<String> deleted = send("DELETE", "/api/targets/batch", null, TOKEN);

    assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
    List<AlertEvent> events = outbox();
    assertThat(events).hasSize(2);
    assertThat(events.get(1).incidentId().toString()).isEqualTo(incident);
    assertThat(events.get(1).resolution()).isEqualTo(AlertEvent.RESOLUTION_TARGET_DELETED);
    assertRecoveredStartsATraceOfItsOwn();
    assertThat(send("GET", "/api/services/batch", null, null).statusCode()).isEqualTo(404);
    assertThat(send("DELETE", "/api/targets/batch", null, TOKEN).statusCode()).isEqualTo(404);
    for (String table :
        List.of(
            "targets",
            "alert_state",
            "incidents",
            "check_history",
            "health_status",
            "probe_schedule")) {
      assertThat(Tables.count(db.dataSource(), "select count(*) from " + table)).as(table).isZero();
    }
    // The name can be used again, from a clean state.
    assertThat(
            send("POST", "/api/targets", "{\"name\":\"batch\",\"type\":\"push\"}", TOKEN)
                .statusCode())
        .isEqualTo(201);
  }

  @Test
  void heartbeatIsValidatedNamingTargetAndField() throws Exception {
    HttpResponse<String> onHttp =
        send(
            "POST",
            "/api/targets",
            "{\"name\":\"web\",\"url\":\"http://x/\",\"heartbeat\":\"2m\"}",
            TOKEN);
    assertBadRequest(onHttp, "heartbeat");
    assertThat(onHttp.body()).contains("'web'", "only a push target");
    assertBadRequest(
        send(
            "POST",
            "/api/targets",
            "{\"name\":\"b\",\"type\":\"push\",\"heartbeat\":\"soon\"}",
            TOKEN),
        "heartbeat");
    assertBadRequest(
        send(
            "POST",
            "/api/targets",
            "{\"name\":\"b\",\"type\":\"push\",\"heartbeat\":\"99999999999999999999h\"}",
            TOKEN),
        "heartbeat");
    assertBadRequest(
        send(
            "POST",
            "/api/targets",
            "{\"name\":\"b\",\"type\":\"push\",\"heartbeat\":\"500ms\"}",
            TOKEN),
        "heartbeat");
    HttpResponse<String> ok =
        send(
            "POST",
            "/api/targets",
            "{\"name\":\"b\",\"type\":\"push\",\"heartbeat\":\"2m\"}",
            TOKEN);
    assertThat(ok.statusCode()).isEqualTo(201);
    assertThat(get("/api/targets/b").get("heartbeat").asText()).isEqualTo("120000ms");
  }

  @Test
  void heartbeatInTheTargetsFileIsValidatedNamingFileTargetAndField(TestDatabase other)
      throws IOException {
    Path file = dir.resolve("targets.yaml");
    Files.writeString(file, "targets:\n  - name: nightly\n    type: push\n    heartbeat: 0s\n");
    assertThatThrownBy(
            () -> MonitorService.start(new MonitorConfig(new Settings(settings(other, file)))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("#1 'nightly'")
        .hasMessageContaining("field 'heartbeat'");
  }

  /** Three DOWN pushes: the incident opens. Returns its id. */
  private String openIncidentByPushes(String name) throws Exception {
    JsonNode last = null;
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> response =
          send(
              "POST",
              "/api/services/" + name + "/results",
              "{\"status\":\"DOWN\",\"error\":\"exit 1\"}",
              TOKEN);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      last = JSON.readTree(response.body());
    }
    assertThat(last.at("/event/kind").asText()).isEqualTo("FAILED");
    return last.at("/event/incidentId").asText();
  }

  /**
   * The RECOVERED of a disabled or deleted target names the span that closed it: a valid
   * traceparent, in a trace other than its FAILED's (no result decided it).
   */
  private void assertRecoveredStartsATraceOfItsOwn() throws Exception {
    List<String> traces;
    try (Connection connection = db.dataSource().getConnection()) {
      traces = Tables.rows(connection, "select traceparent from outbox order by seq");
    }
    assertThat(traces).hasSize(2);
    TraceParent failed = TraceParent.parse(traces.get(0)).orElseThrow();
    assertThat(traces.get(1)).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]");
    assertThat(TraceParent.parse(traces.get(1)))
        .as(traces.get(1))
        .hasValueSatisfying(
            recovered -> assertThat(recovered.traceId()).isNotEqualTo(failed.traceId()));
  }

  private List<AlertEvent> outbox() throws Exception {
    try (Connection connection = db.dataSource().getConnection()) {
      return Tables.rows(connection, "select payload::text from outbox order by seq").stream()
          .map(json -> AlertEventJson.read(json.getBytes(StandardCharsets.UTF_8)))
          .toList();
    }
  }

  @Test
  void healthAndMetricsAreServed() throws Exception {
    JsonNode health = get("/health");
    assertThat(health.get("status").asText()).isEqualTo("UP");
    assertThat(health.at("/checks/database/status").asText()).isEqualTo("UP");
    assertThat(send("GET", "/health/live", null, null).statusCode()).isEqualTo(200);
    String metrics = send("GET", "/metrics", null, null).body();
    assertThat(metrics)
        .contains(
            "vigil_monitor_probes_total",
            "vigil_monitor_probe_latency_seconds",
            "vigil_monitor_recorder_transaction_seconds",
            "vigil_monitor_incidents_open",
            "vigil_monitor_outbox_rows_written_total",
            "jvm_memory_used_bytes",
            "jvm_gc_",
            "process_uptime_seconds",
            "hikaricp_connections_active");
  }

  @Test
  void badTargetsFileStopsStartupNamingFileTargetAndFieldAndWritesNothing(TestDatabase other)
      throws IOException {
    Path file = dir.resolve("targets.yaml");
    Files.writeString(
        file,
        "targets:\n  - name: good\n    type: push\n  - name: web\n    url: http://x/\n    timeout: 0s\n");
    assertThatThrownBy(
            () -> MonitorService.start(new MonitorConfig(new Settings(settings(other, file)))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("#2 'web'")
        .hasMessageContaining("field 'timeout'");
    assertThat(
            Tables.count(
                other.dataSource(), "select count(*) from pg_tables where schemaname = 'public'"))
        .isZero();
  }

  @Test
  void targetsFileIsLoadedIntoTheDatabase(TestDatabase other) throws IOException {
    Path file = dir.resolve("targets.yaml");
    Files.writeString(
        file, "targets:\n  - name: nightly\n    type: push\n    recoveryThreshold: 2\n");
    Map<String, String> values = settings(other, file);
    try (MonitorService second = MonitorService.start(new MonitorConfig(new Settings(values)))) {
      assertThat(second.targets().find("nightly"))
          .get()
          .extracting(t -> t.recoveryThreshold())
          .isEqualTo(2);
    }
  }

  @Test
  void missingSettingsAreReportedTogetherWithoutSecrets() {
    assertThatThrownBy(
            () -> new MonitorConfig(new Settings(Map.of("VIGIL_MONITOR_LEASE", "forever"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_DB_URL")
        .hasMessageContaining("VIGIL_MONITOR_API_TOKEN")
        .hasMessageContaining("VIGIL_MONITOR_LEASE");
    assertThatThrownBy(
            () ->
                new MonitorConfig(
                    new Settings(
                        Map.of(
                            "VIGIL_DB_URL",
                            "jdbc:postgresql://x/y",
                            "VIGIL_MONITOR_API_TOKEN",
                            "short"))))
        .hasMessageContaining("VIGIL_MONITOR_API_TOKEN")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("short"));
  }

  private static Map<String, String> settings(TestDatabase db, Path targetsFile) {
    return TestMonitor.settings(db, targetsFile, false);
  }

  private HttpResponse<String> push(String name, String status, Instant startedAt)
      throws Exception {
    return send(
        "POST",
        "/api/services/" + name + "/results",
        "{\"status\":\"" + status + "\",\"startedAt\":\"" + startedAt + "\"}",
        TOKEN);
  }

  private static void assertBadRequest(HttpResponse<String> response, String field)
      throws IOException {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
    JsonNode body = JSON.readTree(response.body());
    assertThat(body.get("field").asText()).isEqualTo(field);
    assertThat(body.get("error").asText()).isNotBlank();
  }

  private JsonNode get(String path) throws Exception {
    HttpResponse<String> response = send("GET", path, null, TOKEN);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private HttpResponse<String> send(String method, String path, String body, String token)
      throws Exception {
    return TestMonitor.send(http, service.httpPort(), method, path, body, token);
  }
}
