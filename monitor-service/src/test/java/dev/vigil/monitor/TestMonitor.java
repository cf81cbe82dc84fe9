package dev.vigil.monitor;

import dev.vigil.harness.junit.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Settings for a monitor under test and requests to its API, shared by the API tests. */
final class TestMonitor {
  static final String TOKEN = "test-token-123";

  private TestMonitor() {}

  /** Settings on {@code db}; the scheduler runs only when {@code scheduler}. */
  static Map<String, String> settings(TestDatabase db, Path targetsFile, boolean scheduler) {
    Map<String, String> values = new HashMap<>();
    values.put("VIGIL_DB_URL", db.jdbcUrl());
    values.put("VIGIL_DB_USER", db.user());
    values.put("VIGIL_DB_PASSWORD", db.password());
    values.put("VIGIL_HTTP_PORT", "0");
    values.put("VIGIL_MONITOR_API_TOKEN", TOKEN);
    values.put("VIGIL_DB_POOL_SIZE", "4");
    values.put("VIGIL_MONITOR_SCHEDULER_ENABLED", Boolean.toString(scheduler));
    if (targetsFile != null) {
      values.put("VIGIL_MONITOR_TARGETS_FILE", targetsFile.toString());
    }
    return values;
  }

  /** Sends {@code body} (or none) with the bearer {@code token} (or none) to the monitor. */
  static HttpResponse<String> send(
      HttpClient http, int port, String method, String path, String body, String token)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
