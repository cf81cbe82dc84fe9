package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestPostgres;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VigilInfraExtension.class)
class HealthIT {

  @Test
  void readinessFollowsTheDatabaseWhileLivenessStaysUp(TestPostgres postgres) throws Exception {
    TestDatabase db = postgres.newDatabase();
    Map<String, String> env =
        Map.of(
            "VIGIL_DB_URL", db.jdbcUrl(),
            "VIGIL_DB_USER", db.user(),
            "VIGIL_DB_PASSWORD", db.password(),
            "VIGIL_HTTP_PORT", "0",
            "VIGIL_MONITOR_API_TOKEN", "health-token",
            "VIGIL_DB_POOL_SIZE", "2",
            "VIGIL_MONITOR_SCHEDULER_ENABLED", "false");
    try (MonitorService service = MonitorService.start(new MonitorConfig(new Settings(env)));
        HttpClient http = HttpClient.newHttpClient()) {
      // Ready once a connection check answers within the readiness cap (2 s), which a starved
      // machine can miss on a single request; the database is up, so it must become ready.
      await().atMost(Duration.ofSeconds(30)).until(() -> status(http, service, "/health") == 200);

      postgres.stop();
      try {
        long asked = System.nanoTime();
        HttpResponse<String> down = get(http, service, "/health");
        assertThat(down.statusCode()).isEqualTo(503);
        // The check is capped at 2 s; waiting for the pool instead would take its 10 s
        // connectionTimeout. The bound leaves room for a loaded machine and still tells the two
        // apart: the point is "answers instead of hanging", not how fast.
        assertThat(Duration.ofNanos(System.nanoTime() - asked))
            .as("readiness answers instead of waiting for the pool's 10 s connectionTimeout")
            .isLessThan(Duration.ofSeconds(8));
        assertThat(down.body())
            .contains("\"status\":\"DOWN\"", "\"database\":{\"status\":\"DOWN\"");
        assertThat(status(http, service, "/health/live")).isEqualTo(200);
      } finally {
        postgres.start();
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> status(http, service, "/health") == 200);
    }
  }

  private static int status(HttpClient http, MonitorService service, String path) throws Exception {
    return get(http, service, path).statusCode();
  }

  private static HttpResponse<String> get(HttpClient http, MonitorService service, String path)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.httpPort() + path))
            .timeout(Duration.ofSeconds(20))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
