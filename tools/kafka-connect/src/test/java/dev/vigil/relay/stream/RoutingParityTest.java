package dev.vigil.relay.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.kit.Settings;
import dev.vigil.relay.config.RelayConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The connector JSON routes the outbox the way the relay's engine does: same EventRouter settings,
 * same snapshot order. Lives in the relay's package to read its (package-private) engine
 * properties; a change to one without the other fails here before the contract test runs.
 */
class RoutingParityTest {
  private static final Path CONNECTOR_JSON = Path.of("connector", "vigil-outbox-connector.json");

  @Test
  void theConnectorRoutesTheOutboxLikeTheRelay() throws Exception {
    Properties relay =
        EngineProperties.of(
            new RelayConfig(
                new Settings(
                    Map.of(
                        "VIGIL_DB_URL", "jdbc:postgresql://db:5432/vigil",
                        "VIGIL_DB_USER", "vigil",
                        "VIGIL_DB_PASSWORD", "unused",
                        "VIGIL_KAFKA_BOOTSTRAP_SERVERS", "kafka:9092",
                        "VIGIL_TOPIC", "alerts-under-test"))));
    JsonNode connector =
        new ObjectMapper()
            .readTree(
                Files.readString(CONNECTOR_JSON).replace("${VIGIL_TOPIC}", "alerts-under-test"))
            .get("config");

    for (String key : relay.stringPropertyNames()) {
      // The relay limits the router to outbox records with a predicate; the connector drops every
      // other record before it (a Filter), since Connect would publish them.
      if (key.equals("transforms.outbox.predicate")) {
        continue;
      }
      if (key.startsWith("transforms.outbox.") || key.startsWith("snapshot.select.")) {
        assertThat(connector.path(key).asText(null)).as(key).isEqualTo(relay.getProperty(key));
      }
    }
    assertThat(connector.path("plugin.name").asText()).isEqualTo(relay.getProperty("plugin.name"));
    assertThat(connector.path("table.include.list").asText())
        .isEqualTo(relay.getProperty("table.include.list").split(",")[0]);
  }
}
