package dev.vigil.kit.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.kit.metrics.ServiceMetrics;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class OpsRoutesTest {

  @Test
  void readyGaugeFollowsWhatHealthAnswers() throws Exception {
    AtomicBoolean databaseUp = new AtomicBoolean(true);
    try (ServiceMetrics metrics = ServiceMetrics.create("kit")) {
      Javalin app =
          Javalin.create(
              config -> {
                HttpJson.configure(config);
                OpsRoutes.register(
                    config,
                    () -> Health.builder().check("database", databaseUp.get()).build(),
                    metrics);
              });
      app.start(0);
      try {
        assertThat(get(app, "/health").statusCode()).isEqualTo(200);
        assertThat(get(app, "/metrics").body()).contains("vigil_kit_ready 1.0");

        databaseUp.set(false);

        assertThat(get(app, "/health").statusCode()).isEqualTo(503);
        assertThat(get(app, "/metrics").body()).contains("vigil_kit_ready 0.0");
      } finally {
        app.stop();
      }
    }
  }

  private static HttpResponse<String> get(Javalin app, String path) throws Exception {
    try (HttpClient client = HttpClient.newHttpClient()) {
      return client.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + path)).build(),
          HttpResponse.BodyHandlers.ofString());
    }
  }
}
