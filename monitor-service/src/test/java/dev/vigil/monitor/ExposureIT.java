package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.alert.ProbeStatus;
import dev.vigil.monitor.alert.ResultSource;
import dev.vigil.monitor.targets.TargetSpec;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What open reads show against the real database: by default no DOWN reason (host:port, quoted
 * response values), no silence reason or author and no name of who acknowledged, unless the API
 * token is presented or {@code VIGIL_MONITOR_PUBLIC_DETAILS=all}; and the service list is paged.
 */
@ExtendWith(VigilInfraExtension.class)
class ExposureIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = TestMonitor.TOKEN;
  private static final String SECRET_ERROR =
      "connect to db-7.internal:5432 refused, body 'k=s3cr3t'";

  private final HttpClient http = HttpClient.newHttpClient();
  private MonitorService service;

  @AfterEach
  void stop() {
    if (service != null) {
      service.close();
    }
    http.close();
  }

  private void start(TestDatabase db, String publicDetails) throws Exception {
    Map<String, String> settings = TestMonitor.settings(db, null, false);
    if (publicDetails != null) {
      settings.put("VIGIL_MONITOR_PUBLIC_DETAILS", publicDetails);
    }
    service = MonitorService.start(new MonitorConfig(new Settings(settings)));
    service.targets().add(TargetSpec.push("db"));
    for (int i = 0; i < 3; i++) {
      service
          .recorder()
          .record(
              new ProbeResult(
                  "db", ProbeStatus.DOWN, null, null, null, SECRET_ERROR, ResultSource.PUSH, null));
    }
    String incident = get("/api/incidents", TOKEN).at("/incidents/0/incidentId").asText();
    assertThat(
            send(
                    "POST",
                    "/api/incidents/" + incident + "/acknowledge",
                    "{\"who\":\"alice.oncall\"}")
                .statusCode())
        .isEqualTo(200);
    String until = Instant.now().plus(1, ChronoUnit.DAYS).toString();
    assertThat(
            send(
                    "POST",
                    "/api/silences",
                    "{\"service\":\"db\",\"who\":\"bob.ops\",\"why\":\"migrating db-7.internal\","
                        + "\"until\":\""
                        + until
                        + "\"}")
                .statusCode())
        .isEqualTo(201);
  }

  @Test
  void openReadsHideReasonsSilenceReasonsAndWhoAcknowledgedByDefault(TestDatabase db)
      throws Exception {
    start(db, null);
    String[] reads = {
      "/api/services",
      "/api/services/db",
      "/api/services/db/history",
      "/api/incidents",
      "/api/silences",
      "/status",
      "/status/services/db"
    };
    for (String read : reads) {
      String anonymous = raw(read, null).body();
      assertThat(anonymous)
          .as(read + " without the token")
          .doesNotContain("db-7.internal")
          .doesNotContain("s3cr3t")
          .doesNotContain("alice.oncall")
          .doesNotContain("bob.ops");
    }
    assertThat(get("/api/services/db", null).at("/lastCheck/status").asText()).isEqualTo("DOWN");
    assertThat(get("/api/incidents", null).at("/incidents/0/acknowledgedAt").isMissingNode())
        .isFalse();

    // With the token every read shows everything; a public page answered so is private.
    assertThat(get("/api/services", TOKEN).at("/services/0/lastCheck/error").asText())
        .isEqualTo(SECRET_ERROR);
    assertThat(get("/api/incidents", TOKEN).at("/incidents/0/acknowledgedBy").asText())
        .isEqualTo("alice.oncall");
    assertThat(get("/api/silences", TOKEN).at("/silences/0/who").asText()).isEqualTo("bob.ops");
    HttpResponse<String> page = raw("/status", TOKEN);
    assertThat(page.body()).contains("db-7.internal", "alice.oncall", "bob.ops");
    assertThat(page.headers().firstValue("Cache-Control").orElseThrow()).startsWith("private");
    assertThat(raw("/status", null).headers().firstValue("Cache-Control").orElseThrow())
        .startsWith("public");
    assertThat(raw("/status", null).headers().allValues("Vary")).contains("Authorization");
  }

  @Test
  void publicDetailsAllShowsEverythingWithoutTheToken(TestDatabase db) throws Exception {
    start(db, "all");
    assertThat(get("/api/services", null).at("/services/0/lastCheck/error").asText())
        .isEqualTo(SECRET_ERROR);
    assertThat(raw("/status", null).body()).contains("alice.oncall", "bob.ops");
  }

  @Test
  void theServiceListIsPagedWithACursor(TestDatabase db) throws Exception {
    start(db, null);
    for (String name : List.of("a1", "a2", "b1", "c1")) {
      service.targets().add(TargetSpec.push(name));
    }
    List<String> seen = new ArrayList<>();
    String after = null;
    int pages = 0;
    do {
      JsonNode page = get("/api/services?limit=2" + (after == null ? "" : "&after=" + after), null);
      page.get("services").forEach(s -> seen.add(s.get("service").asText()));
      after = page.get("nextAfter").isNull() ? null : page.get("nextAfter").asText();
      pages++;
    } while (after != null && pages < 10);
    assertThat(seen).containsExactly("a1", "a2", "b1", "c1", "db");
    assertThat(get("/api/services", null).get("services")).hasSize(5);
    assertThat(raw("/api/services?limit=1001", null).statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(raw("/api/services?limit=0", null).body()).get("field").asText())
        .isEqualTo("limit");
  }

  private JsonNode get(String path, String token) throws Exception {
    HttpResponse<String> response = raw(path, token);
    assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private HttpResponse<String> raw(String path, String token) throws Exception {
    return TestMonitor.send(http, service.httpPort(), "GET", path, null, token);
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    return TestMonitor.send(http, service.httpPort(), method, path, body, TOKEN);
  }
}
