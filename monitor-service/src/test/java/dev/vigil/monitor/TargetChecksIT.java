package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.targets.TargetSpec;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks beyond the status code through the API and the targets file: stored (V5) and read back
 * unchanged, header values never shown, hostile definitions refused with nothing written, and the
 * scheduler probing tcp and body-checked http targets with a clear last error.
 */
@ExtendWith(VigilInfraExtension.class)
class TargetChecksIT {
  private static final String SECRET = "s3cr3t-key-value";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private MonitorService service;
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void stop() {
    if (service != null) {
      service.close();
    }
    http.close();
  }

  @Test
  void checksSurviveTheApiAndTheDatabaseAndHeaderValuesAreNeverShown(TestDatabase db)
      throws Exception {
    service = MonitorService.start(new MonitorConfig(new Settings(settings(db, null, false))));
    String definition =
        """
        {"name": "search", "url": "https://search.test/api?key=abc", "method": "POST",
         "headers": {"X-Api-Key": "%s", "Content-Type": "application/json"},
         "body": "{\\"q\\":1}", "maxLatency": "800ms", "bodyContains": "hits",
         "bodyNotContains": ["error"], "jsonEquals": {"/status": "green", "/shards/failed": 0},
         "tlsExpiryDays": 14}
        """
            .formatted(SECRET);
    HttpResponse<String> created = send("POST", "/api/targets", definition);
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    assertThat(created.body()).doesNotContain(SECRET, "abc");
    JsonNode shown = JSON.readTree(created.body());
    assertThat(shown.at("/headers/X-Api-Key").asText()).isEqualTo("<redacted>");
    assertThat(shown.at("/headers/Content-Type").asText()).isEqualTo("<redacted>");
    assertThat(shown.at("/maxLatency").asText()).isEqualTo("800ms");
    assertThat(shown.at("/jsonEquals/~1shards~1failed").asInt()).isZero();
    assertThat(shown.at("/tlsExpiryDays").asInt()).isEqualTo(14);

    JsonNode read = get("/api/targets/search");
    assertThat(read).isEqualTo(shown);

    TargetSpec stored = service.targets().find("search").orElseThrow();
    assertThat(stored.checks().headers().get("X-Api-Key").value()).isEqualTo(SECRET);
    assertThat(stored.checks().json()).hasSize(2);
    assertThat(stored.checks().maxLatency()).isEqualTo(Duration.ofMillis(800));
    assertThat(
            Tables.rows(db.dataSource().getConnection(), "select checks::text from targets")
                .getFirst())
        .contains("\"tlsExpiryDays\": 14");

    HttpResponse<String> updated =
        send(
            "PUT",
            "/api/targets/search",
            "{\"url\": \"https://search.test/api\", \"bodyContains\": [\"hits\", \"took\"]}");
    assertThat(updated.statusCode()).as(updated.body()).isEqualTo(200);
    TargetSpec replaced = service.targets().find("search").orElseThrow();
    assertThat(replaced.checks().bodyContains()).containsExactly("hits", "took");
    assertThat(replaced.checks().headers()).isEmpty();
    assertThat(replaced.checks().tlsExpiryDays()).isNull();

    assertThat(
            send("POST", "/api/targets", "{\"name\": \"db\", \"url\": \"tcp://db.test:5432\"}")
                .statusCode())
        .isEqualTo(201);
    assertThat(
            send(
                    "POST",
                    "/api/targets",
                    "{\"name\": \"dns\", \"type\": \"dns\", \"url\": \"dns://api.test\","
                        + " \"expectAddress\": \"10.0.0.7\", \"maxLatency\": \"50ms\"}")
                .statusCode())
        .isEqualTo(201);
    JsonNode tcp = get("/api/targets/db");
    assertThat(tcp.at("/type").asText()).isEqualTo("tcp");
    // What a read shows can be sent back unchanged.
    assertThat(send("PUT", "/api/targets/db", tcp.toString()).statusCode()).isEqualTo(200);
    assertThat(get("/api/targets/dns").at("/expectAddress/0").asText()).isEqualTo("10.0.0.7");
  }

  @Test
  void hostileDefinitionsAreRefusedNamingTheFieldAndWriteNothing(TestDatabase db) throws Exception {
    service = MonitorService.start(new MonitorConfig(new Settings(settings(db, null, false))));
    Map<String, List<String>> before = Tables.snapshot(db.dataSource());
    Map<String, String> refused =
        Map.of(
            "{\"name\": \"a\", \"url\": \"http://x.test/\", \"headers\": {\"X-A\":"
                + " {\"valueFile\": \"/etc/shadow\"}}}",
            "headers.X-A.valueFile",
            "{\"name\": \"a\", \"url\": \"http://x.test/\", \"jsonEquals\": {\"status\": 1}}",
            "jsonEquals",
            "{\"name\": \"a\", \"url\": \"tcp://x.test:99999\"}",
            "url",
            "{\"name\": \"a\", \"url\": \"http://x.test/\", \"headers\": {\"X-A\":"
                + " \"v\\u0000\"}}",
            "headers.X-A",
            "{\"name\": \"a\", \"url\": \"http://x.test/\", \"maxLatency\": true}",
            "maxLatency",
            "{\"name\": \"a\", \"url\": \"http://x.test/\", \"tlsExpiryDays\": 1e9}",
            "tlsExpiryDays");
    for (Map.Entry<String, String> bad : refused.entrySet()) {
      HttpResponse<String> response = send("POST", "/api/targets", bad.getKey());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
      assertThat(JSON.readTree(response.body()).get("field").asText()).isEqualTo(bad.getValue());
      assertThat(response.body()).doesNotContain("\u0000");
    }
    assertThat(Tables.snapshot(db.dataSource())).isEqualTo(before);
  }

  @Test
  void scheduledProbesOfTcpAndBodyCheckedTargetsRecordAClearLastError(TestDatabase db)
      throws Exception {
    HttpServer target = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    target.createContext(
        "/health",
        exchange -> {
          byte[] body = "{\"status\":\"degraded\"}".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    target.start();
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    Path secret = Files.writeString(dir.resolve("token"), SECRET);
    Path file = dir.resolve("targets.yaml");
    Files.writeString(
        file,
        """
        targets:
          - name: api
            url: http://127.0.0.1:%d/health
            interval: 1s
            timeout: 1s
            headers: {Authorization: {valueFile: %s}}
            jsonEquals: {/status: ok}
          - name: db
            url: tcp://127.0.0.1:%d
            interval: 1s
            timeout: 1s
        """
            .formatted(target.getAddress().getPort(), secret, closed));
    try {
      service = MonitorService.start(new MonitorConfig(new Settings(settings(db, file, true))));
      assertThat(get("/api/targets/api").at("/headers/Authorization/valueFile").asText())
          .isEqualTo(secret.toString());
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                Map<String, String> errors = new HashMap<>();
                get("/api/services")
                    .get("services")
                    .forEach(
                        s ->
                            errors.put(
                                s.get("service").asText(), s.at("/lastCheck/error").asText()));
                assertThat(errors)
                    .containsEntry("api", "body: \"/status\" is \"degraded\", expected \"ok\"")
                    .containsEntry(
                        "db", "connect: 127.0.0.1:" + closed + " refused the connection");
              });
      assertThat(
              Tables.count(
                  db.dataSource(),
                  "select count(*) from check_history where error like '%" + SECRET + "%'"))
          .isZero();
    } finally {
      target.stop(0);
    }
  }

  private static Map<String, String> settings(TestDatabase db, Path targetsFile, boolean probe) {
    return TestMonitor.settings(db, targetsFile, probe);
  }

  private JsonNode get(String path) throws Exception {
    HttpResponse<String> response = send("GET", path, null);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    return TestMonitor.send(http, service.httpPort(), method, path, body, TestMonitor.TOKEN);
  }
}
