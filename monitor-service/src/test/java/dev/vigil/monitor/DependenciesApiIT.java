package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * dependsOn through the API: a cycle of any length is a 400 naming it and writes nothing, an
 * unknown parent is accepted and shown as such, deleting a parent removes it from its children, and
 * an incident held back by a parent says why in /api/incidents.
 */
@ExtendWith(VigilInfraExtension.class)
class DependenciesApiIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newHttpClient();
  private MonitorService service;

  @BeforeEach
  void start(TestDatabase db) {
    service =
        MonitorService.start(
            new MonitorConfig(new Settings(TestMonitor.settings(db, null, false))));
  }

  @AfterEach
  void stop() {
    service.close();
  }

  @Test
  void cyclesAreRefusedUnknownParentsShownAndAHeldBackChildSaysWhy() throws Exception {
    assertThat(post("/api/targets", "{\"name\":\"gateway\",\"type\":\"push\"}").statusCode())
        .isEqualTo(201);
    assertThat(
            post(
                    "/api/targets",
                    "{\"name\":\"app\",\"type\":\"push\",\"dependsOn\":[\"gateway\",\"ghost\"]}")
                .statusCode())
        .isEqualTo(201);
    JsonNode app = get("/api/targets/app");
    assertThat(app.path("parents").path("ghost").asText()).isEqualTo("unknown parent");
    assertThat(app.path("parents").path("gateway").asText()).isEqualTo("target");

    HttpResponse<String> threeLong =
        send(
            "PUT",
            "/api/targets/gateway",
            "{\"name\":\"gateway\",\"type\":\"push\",\"dependsOn\":[\"ghost\"]}");
    assertThat(threeLong.statusCode()).as("ghost is not a target: no cycle yet").isEqualTo(200);
    HttpResponse<String> cycle =
        post("/api/targets", "{\"name\":\"ghost\",\"type\":\"push\",\"dependsOn\":[\"app\"]}");
    assertThat(cycle.statusCode()).as(cycle.body()).isEqualTo(400);
    assertThat(JSON.readTree(cycle.body()).get("field").asText()).isEqualTo("dependsOn");
    assertThat(cycle.body()).contains("app -> gateway -> ghost -> app");
    assertThat(get("/api/targets").path("targets")).hasSize(2);

    // The gateway (now without a cycle-closing parent) goes down, then the child: one page.
    send("PUT", "/api/targets/gateway", "{\"name\":\"gateway\",\"type\":\"push\"}");
    for (String target : List.of("gateway", "app")) {
      for (int i = 0; i < 3; i++) {
        assertThat(
                post(
                        "/api/services/" + target + "/results",
                        "{\"status\":\"DOWN\",\"error\":\"x\"}")
                    .statusCode())
            .isEqualTo(200);
      }
    }
    JsonNode incidents = get("/api/incidents?service=app").path("incidents");
    assertThat(incidents).hasSize(1);
    assertThat(incidents.get(0).path("heldReason").asText()).isEqualTo("parent gateway is down");
    assertThat(incidents.get(0).path("announcedAt").isNull()).isTrue();
    HttpResponse<String> status = send("GET", "/status", null);
    assertThat(status.body())
        .as("the status page groups the held-back child under its parent's incident")
        .contains("not paged, behind it: <a href=\"/status/services/app\">app</a>")
        .doesNotContain("not paged: waiting for parent gateway");

    assertThat(send("DELETE", "/api/targets/gateway", null).statusCode()).isEqualTo(200);
    assertThat(get("/api/targets/app").path("dependsOn"))
        .extracting(JsonNode::asText)
        .containsExactly("ghost");
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    return send("POST", path, body);
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    return TestMonitor.send(http, service.httpPort(), method, path, body, TestMonitor.TOKEN);
  }

  private JsonNode get(String path) throws Exception {
    HttpResponse<String> response = send("GET", path, null);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }
}
