package dev.vigil.notifier.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.db.Database;
import dev.vigil.kit.http.OpenApiRoute;
import dev.vigil.kit.metrics.ServiceMetrics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The notifier serves its OpenAPI document at {@code /openapi.yaml}, and the document names exactly
 * the routes the server registers: a route added without documenting it fails here.
 */
@ExtendWith(VigilInfraExtension.class)
class OpenApiIT {
  @Test
  void servedDocumentDescribesExactlyTheRegisteredRoutes(TestDatabase db) throws Exception {
    try (Database database =
            Database.open(
                new Database.Options(
                    db.jdbcUrl(), db.user(), db.password(), 2, "openapi-test", null, null));
        ServiceMetrics metrics = ServiceMetrics.create("notifier");
        HttpApi api =
            new HttpApi(
                0, database, metrics, "admin-token-1", () -> null, () -> {}, ChannelViews.none());
        HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> served =
          http.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + api.port() + OpenApiRoute.PATH))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(served.statusCode()).isEqualTo(200);
      assertThat(served.headers().firstValue("Content-Type"))
          .hasValueSatisfying(type -> assertThat(type).startsWith("application/yaml"));
      JsonNode document = new ObjectMapper(new YAMLFactory()).readTree(served.body());
      assertThat(document.path("openapi").asText()).startsWith("3.");
      assertThat(OpenApiRoute.operations(document)).isEqualTo(api.routes());
    }
  }
}
