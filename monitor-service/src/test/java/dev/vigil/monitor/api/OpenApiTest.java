package dev.vigil.monitor.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.vigil.kit.http.OpenApiRoute;
import dev.vigil.kit.metrics.ServiceMetrics;
import dev.vigil.monitor.alert.Recorder;
import dev.vigil.monitor.replay.OutboxReplay;
import dev.vigil.monitor.status.StatusAccess;
import dev.vigil.monitor.status.StatusPage;
import dev.vigil.monitor.targets.TargetStore;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The OpenAPI document served at {@code /openapi.yaml} names exactly the routes the server
 * registers: a route added without documenting it (or documented and gone) fails here.
 */
class OpenApiTest {
  private static final Set<String> METHODS =
      Set.of("get", "put", "post", "delete", "patch", "head", "options");

  @Test
  void documentDescribesExactlyTheRegisteredRoutes() throws Exception {
    assertThat(OpenApiRoute.operations(document())).isEqualTo(registeredRoutes());
  }

  @Test
  void documentIsOpenApi3WithAnOperationSummaryForEveryRoute() throws Exception {
    JsonNode document = document();
    assertThat(document.path("openapi").asText()).startsWith("3.");
    for (Iterator<Map.Entry<String, JsonNode>> paths = document.path("paths").fields();
        paths.hasNext(); ) {
      Map.Entry<String, JsonNode> path = paths.next();
      path.getValue()
          .fields()
          .forEachRemaining(
              operation -> {
                if (METHODS.contains(operation.getKey())) {
                  assertThat(operation.getValue().path("summary").asText())
                      .as(operation.getKey() + " " + path.getKey())
                      .isNotBlank();
                  assertThat(operation.getValue().path("responses").size())
                      .as(operation.getKey() + " " + path.getKey())
                      .isPositive();
                }
              });
    }
  }

  static Set<String> registeredRoutes() {
    PGSimpleDataSource unused = new PGSimpleDataSource();
    try (ServiceMetrics metrics = ServiceMetrics.create("monitor")) {
      HttpApi api =
          new HttpApi(
              unused,
              new TargetStore(unused),
              new Recorder(unused, metrics.registry()),
              metrics,
              "route-listing-token",
              false,
              Clock.systemUTC(),
              new StatusPage(unused, StatusAccess.open(), Duration.ofSeconds(30)),
              new OutboxReplay(unused, 1, 1, metrics.registry()));
      return api.routes();
    }
  }

  private static JsonNode document() throws Exception {
    try (InputStream in = HttpApi.class.getResourceAsStream(OpenApiRoute.RESOURCE)) {
      assertThat(in).as(OpenApiRoute.RESOURCE + " beside HttpApi").isNotNull();
      return new ObjectMapper(new YAMLFactory()).readTree(in);
    }
  }
}
