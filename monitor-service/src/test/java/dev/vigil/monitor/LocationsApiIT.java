package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Settings;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Locations, quorum and retryInterval through the API and the targets file: bad input is a 400 (or
 * a refused start) naming the field and writes nothing; a good definition gets one schedule row per
 * location; pushed results name their location exactly when the target lists locations.
 */
@ExtendWith(VigilInfraExtension.class)
class LocationsApiIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TARGET = "\"name\":\"web\",\"url\":\"http://web.internal/\"";

  @TempDir Path dir;
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
  void badLocationsQuorumOrRetryIntervalIs400NamingTheFieldAndWritesNothing() throws Exception {
    Map<String, List<String>> before = Tables.snapshot(service.dataSource());
    Map<String, String> cases =
        Map.of(
            "\"locations\":[]", "locations",
            "\"locations\":[\"Eu West\"]", "locations[0]",
            "\"locations\":[\"eu\\u0000west\"]", "locations[0]",
            "\"locations\":[\"a\",\"b\",\"c\"],\"quorum\":0", "quorum",
            "\"locations\":[\"a\",\"b\",\"c\"],\"quorum\":4", "quorum",
            "\"retryInterval\":\"900ms\"", "retryInterval",
            "\"interval\":\"5s\",\"retryInterval\":\"6s\"", "retryInterval");
    for (Map.Entry<String, String> bad : cases.entrySet()) {
      HttpResponse<String> response = post("/api/targets", "{" + TARGET + "," + bad.getKey() + "}");
      assertThat(response.statusCode()).as(bad.getKey() + ": " + response.body()).isEqualTo(400);
      assertThat(JSON.readTree(response.body()).get("field").asText())
          .as(bad.getKey())
          .isEqualTo(bad.getValue());
    }
    assertThat(Tables.snapshot(service.dataSource())).isEqualTo(before);
  }

  @Test
  void aLocatedTargetGetsAScheduleRowPerLocationAndShowsItsQuorum() throws Exception {
    HttpResponse<String> created =
        post(
            "/api/targets",
            "{"
                + TARGET
                + ",\"interval\":\"10s\",\"retryInterval\":\"2s\","
                + "\"locations\":[\"eu-west\",\"us-east\",\"not-built-yet\"]}");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

    JsonNode target = get("/api/targets/web");
    assertThat(target.get("locations").toString())
        .isEqualTo("[\"eu-west\",\"us-east\",\"not-built-yet\"]");
    assertThat(target.get("quorum").asInt()).isEqualTo(2);
    assertThat(target.get("retryInterval").asText()).isEqualTo("2000ms");
    assertThat(
            Tables.count(
                service.dataSource(),
                "select count(*) from location_schedule where target = 'web'"))
        .isEqualTo(3);
    JsonNode web = get("/api/services/web");
    assertThat(web.get("monitoring").asText())
        .as("no location has reported yet")
        .isEqualTo("degraded");
    assertThat(web.get("state").asText()).isEqualTo("DEGRADED");

    HttpResponse<String> replaced =
        send("PUT", "/api/targets/web", "{" + TARGET + ",\"locations\":[\"eu-west\"]}");
    assertThat(replaced.statusCode()).as(replaced.body()).isEqualTo(200);
    try (var connection = service.dataSource().getConnection()) {
      assertThat(
              Tables.rows(
                  connection, "select location from location_schedule where target = 'web'"))
          .containsExactly("eu-west");
    }
  }

  @Test
  void pushedResultsNameTheirLocationExactlyWhenTheTargetListsLocations() throws Exception {
    assertThat(post("/api/targets", "{" + TARGET + ",\"locations\":[\"eu\",\"us\"]}").statusCode())
        .isEqualTo(201);
    assertThat(post("/api/targets", "{\"name\":\"batch\",\"type\":\"push\"}").statusCode())
        .isEqualTo(201);

    assertField(post("/api/services/web/results", "{\"status\":\"DOWN\"}"), "location");
    assertField(
        post("/api/services/web/results", "{\"status\":\"DOWN\",\"location\":\"Mars\"}"),
        "location");
    assertField(
        post("/api/services/web/results", "{\"status\":\"DOWN\",\"location\":\"eu\\u0000\"}"),
        "location");
    assertField(
        post("/api/services/batch/results", "{\"status\":\"UP\",\"location\":\"eu\"}"), "location");

    HttpResponse<String> remote =
        post("/api/services/web/results", "{\"status\":\"DOWN\",\"location\":\"remote-1\"}");
    assertThat(remote.statusCode()).as(remote.body()).isEqualTo(200);
    JsonNode web = get("/api/services/web");
    assertThat(web.get("locations").findValuesAsText("location"))
        .containsExactly("eu", "remote-1", "us");
    assertThat(web.get("locations").get(1).get("state").asText()).isEqualTo("counting");
    assertThat(web.get("locations").get(1).get("lastError").asText())
        .isEqualTo("reported DOWN by external checker");
  }

  @Test
  void badLocationsInTheTargetsFileStopTheStartNamingFileTargetAndField(TestDatabase other)
      throws Exception {
    Path file = dir.resolve("targets.yaml");
    Files.writeString(
        file, "targets:\n  - name: web\n    url: http://web.internal/\n    locations: [eu, eu]\n");

    assertThatThrownBy(
            () ->
                MonitorService.start(
                    new MonitorConfig(new Settings(TestMonitor.settings(other, file, false)))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("#1 'web'")
        .hasMessageContaining("field 'locations[1]'");
  }

  private static void assertField(HttpResponse<String> response, String field) throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
    assertThat(JSON.readTree(response.body()).get("field").asText()).isEqualTo(field);
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
