package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Silences, prefix windows, target windows and acknowledgement through the HTTP API and the status
 * page; every hostile input is a 400 naming the field, with nothing written.
 */
@ExtendWith(VigilInfraExtension.class)
class QuietApiIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();
  @TempDir Path dir;
  private MonitorService monitor;

  @BeforeEach
  void start(TestDatabase db) throws Exception {
    Path targets = dir.resolve("targets.yaml");
    Files.writeString(
        targets,
        """
        targets:
          - name: batch
            type: push
            maintenance:
              - {days: [sat], start: "02:00", length: 2h, zone: Europe/Berlin}
        maintenance:
          - {prefix: nightly-, days: [mon, tue], start: "23:30", length: 90m, zone: UTC}
        """);
    Map<String, String> settings = TestMonitor.settings(db, targets, false);
    monitor = MonitorService.start(new MonitorConfig(new Settings(settings)));
  }

  @AfterEach
  void stop() {
    if (monitor != null) {
      monitor.close();
    }
  }

  @Test
  void silenceIsAddedListedShownAndDeleted() throws Exception {
    String until = Instant.now().plus(2, ChronoUnit.HOURS).toString();
    HttpResponse<String> added =
        send(
            "POST",
            "/api/silences",
            "{\"service\":\"batch\",\"who\":\"alice\",\"why\":\"deploy <b>v2</b>\",\"until\":\""
                + until
                + "\"}");
    assertThat(added.statusCode()).as(added.body()).isEqualTo(201);
    String id = JSON.readTree(added.body()).path("id").asText();
    assertThat(JSON.readTree(send("GET", "/api/silences", null).body()).path("silences"))
        .singleElement()
        .satisfies(s -> assertThat(s.path("who").asText()).isEqualTo("alice"));

    String page = send("GET", "/status", null).body();
    assertThat(page).contains("Maintenance windows and silences");
    assertThat(page).contains("deploy &lt;b&gt;v2&lt;/b&gt; — by alice").contains("in effect");
    assertThat(page).as("the target's window and the file's prefix window").contains("nightly-*");
    assertThat(send("GET", "/status/services/batch", null).body())
        .contains("Sat 02:00 for 2h 0m (Europe/Berlin)")
        .doesNotContain("nightly-*");

    assertThat(send("DELETE", "/api/silences/" + id, null).statusCode()).isEqualTo(200);
    assertThat(send("DELETE", "/api/silences/" + id, null).statusCode()).isEqualTo(404);
    assertThat(JSON.readTree(send("GET", "/api/silences", null).body()).path("silences")).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "until in the past | {'service':'batch','who':'a','why':'b','until':'2020-01-01T00:00:00Z'} | until",
        "year 9999 | {'service':'batch','who':'a','why':'b','until':'9999-12-31T23:59:59Z'} | until",
        "not an instant | {'service':'batch','who':'a','why':'b','until':'tomorrow'} | until",
        "no until | {'service':'batch','who':'a','why':'b'} | until",
        "NUL in who | {'service':'batch','who':'a\\u0000b','why':'b','until':'$SOON'} | who",
        "empty why | {'service':'batch','who':'a','why':' ','until':'$SOON'} | why",
        "both scopes | {'service':'batch','prefix':'b','who':'a','why':'b','until':'$SOON'} | service",
        "no scope | {'who':'a','why':'b','until':'$SOON'} | service",
        "bad service | {'service':'Bad Name!','who':'a','why':'b','until':'$SOON'} | service",
        "NUL in prefix | {'prefix':'b\\u0000','who':'a','why':'b','until':'$SOON'} | prefix",
        "unknown field | {'service':'batch','who':'a','why':'b','until':'$SOON','x':1} | x",
      })
  void hostileSilencesAreRefusedNamingTheField(String what, String body, String field)
      throws Exception {
    String soon = Instant.now().plus(1, ChronoUnit.HOURS).toString();
    HttpResponse<String> response =
        send("POST", "/api/silences", body.replace('\'', '"').replace("$SOON", soon));
    assertThat(response.statusCode()).as(what + ": " + response.body()).isEqualTo(400);
    assertThat(JSON.readTree(response.body()).path("field").asText()).isEqualTo(field);
    assertThat(JSON.readTree(send("GET", "/api/silences", null).body()).path("silences")).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "unknown zone | {'prefix':'b','days':['mon'],'start':'02:00','length':'1h','zone':'Moon/Base'} | zone",
        "25:00 | {'prefix':'b','days':['mon'],'start':'25:00','length':'1h','zone':'UTC'} | start",
        "negative length | {'prefix':'b','days':['mon'],'start':'02:00','length':'-2h','zone':'UTC'} | length",
        "over 7 days | {'prefix':'b','days':['mon'],'start':'02:00','length':'8d','zone':'UTC'} | length",
        "empty days | {'prefix':'b','days':[],'start':'02:00','length':'1h','zone':'UTC'} | days",
        "NUL in zone | {'prefix':'b','days':['mon'],'start':'02:00','length':'1h','zone':'UTC\\u0000'} | zone",
        "no prefix | {'days':['mon'],'start':'02:00','length':'1h','zone':'UTC'} | prefix",
      })
  void hostileWindowsAreRefusedNamingTheField(String what, String body, String field)
      throws Exception {
    HttpResponse<String> response =
        send("POST", "/api/maintenance-windows", body.replace('\'', '"'));
    assertThat(response.statusCode()).as(what + ": " + response.body()).isEqualTo(400);
    assertThat(JSON.readTree(response.body()).path("field").asText()).isEqualTo(field);
    assertThat(JSON.readTree(send("GET", "/api/maintenance-windows", null).body()).path("windows"))
        .as("only the file's window")
        .hasSize(1);
  }

  @Test
  void prefixWindowsFromTheApiAreListedAndDeletedButTheFilesAreNot() throws Exception {
    HttpResponse<String> added =
        send(
            "POST",
            "/api/maintenance-windows",
            "{\"prefix\":\"pay\",\"days\":[\"sun\"],\"start\":\"03:00\",\"length\":\"45m\","
                + "\"zone\":\"America/New_York\"}");
    assertThat(added.statusCode()).as(added.body()).isEqualTo(201);
    JsonNode windows = JSON.readTree(send("GET", "/api/maintenance-windows", null).body());
    assertThat(windows.path("windows")).hasSize(2);
    String fileId = null;
    for (JsonNode window : windows.path("windows")) {
      if (window.path("source").asText().equals("file")) {
        fileId = window.path("id").asText();
      }
    }
    assertThat(send("DELETE", "/api/maintenance-windows/" + fileId, null).statusCode())
        .isEqualTo(404);
    String apiId = JSON.readTree(added.body()).path("id").asText();
    assertThat(send("DELETE", "/api/maintenance-windows/" + apiId, null).statusCode())
        .isEqualTo(200);
    assertThat(send("DELETE", "/api/maintenance-windows/not-a-uuid", null).statusCode())
        .isEqualTo(400);
  }

  @Test
  void targetWindowsAndRemindEveryGoThroughTheTargetApi() throws Exception {
    HttpResponse<String> bad =
        send(
            "PUT",
            "/api/targets/batch",
            "{\"type\":\"push\",\"maintenance\":[{\"days\":[\"sat\"],\"start\":\"02:00\","
                + "\"length\":\"1h\",\"zone\":\"Europe/Nowhere\"}]}");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(bad.body()).path("field").asText()).isEqualTo("maintenance[0].zone");
    HttpResponse<String> good =
        send("PUT", "/api/targets/batch", "{\"type\":\"push\",\"remindEvery\":\"30m\"}");
    assertThat(good.statusCode()).as(good.body()).isEqualTo(200);
    JsonNode target = JSON.readTree(send("GET", "/api/targets/batch", null).body());
    assertThat(target.path("remindEvery").asText()).isEqualTo("1800000ms");
    assertThat(target.has("maintenance")).as("replaced without a window").isFalse();
  }

  @Test
  void anOpenIncidentIsAcknowledgedOnceAndShownInTheApiAndOnTheStatusPage() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(
              send("POST", "/api/services/batch/results", "{\"status\":\"DOWN\",\"error\":\"x\"}")
                  .statusCode())
          .isEqualTo(200);
    }
    JsonNode incident =
        JSON.readTree(send("GET", "/api/incidents?state=open", null).body())
            .path("incidents")
            .get(0);
    String id = incident.path("incidentId").asText();
    assertThat(incident.path("acknowledgedBy").isNull()).isTrue();
    assertThat(incident.path("announcedAt").isNull()).isFalse();

    String path = "/api/incidents/" + id + "/acknowledge";
    assertThat(send("POST", path, "{\"who\":\"a\\u0000b\"}").statusCode()).isEqualTo(400);
    assertThat(send("POST", path, "{}").statusCode()).isEqualTo(400);
    assertThat(
            TestMonitor.send(http, monitor.httpPort(), "POST", path, "{\"who\":\"x\"}", null)
                .statusCode())
        .isEqualTo(401);
    HttpResponse<String> acked = send("POST", path, "{\"who\":\"alice\"}");
    assertThat(acked.statusCode()).as(acked.body()).isEqualTo(200);
    assertThat(
            JSON.readTree(send("POST", path, "{\"who\":\"bob\"}").body())
                .path("acknowledgedBy")
                .asText())
        .isEqualTo("alice");
    JsonNode after =
        JSON.readTree(send("GET", "/api/incidents?state=open", null).body())
            .path("incidents")
            .get(0);
    assertThat(after.path("acknowledgedBy").asText()).isEqualTo("alice");
    assertThat(after.path("acknowledgedAt").asText()).isNotEmpty();
    assertThat(send("GET", "/status/services/batch", null).body())
        .contains("acknowledged by alice");

    assertThat(
            send(
                    "POST",
                    "/api/incidents/" + java.util.UUID.randomUUID() + "/acknowledge",
                    "{\"who\":\"a\"}")
                .statusCode())
        .isEqualTo(404);
    send("POST", "/api/services/batch/results", "{\"status\":\"UP\"}");
    assertThat(send("POST", path, "{\"who\":\"alice\"}").statusCode())
        .as("closed incident")
        .isEqualTo(409);
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    return TestMonitor.send(http, monitor.httpPort(), method, path, body, TestMonitor.TOKEN);
  }
}
