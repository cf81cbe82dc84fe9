package dev.vigil.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PlaceholdersTest {
  private static final Path CONNECTOR_JSON = Path.of("connector", "vigil-outbox-connector.json");
  private static final Path WORKER = Path.of("worker", "connect-distributed.properties");

  @Test
  void fillsVigilPlaceholdersAndLeavesConfigProviderReferencesToConnect() {
    assertThat(
            Placeholders.fill(
                "a=${VIGIL_A}&b=${directory:${VIGIL_DIR}:db_password}",
                Map.of("VIGIL_A", "x&$1", "VIGIL_DIR", "/run/secrets")))
        .isEqualTo("a=x&$1&b=${directory:/run/secrets:db_password}");
  }

  @Test
  void aMissingPlaceholderIsNamed() {
    assertThatThrownBy(() -> Placeholders.fill("x=${VIGIL_A} y=${VIGIL_B}", Map.of("VIGIL_A", "1")))
        .hasMessageContaining("VIGIL_B")
        .hasMessageNotContaining("VIGIL_A");
  }

  @Test
  void valuesThatCouldBreakOutOfJsonOrAPropertiesLineAreRefused() {
    for (String hostile :
        new String[] {
          "db\", \"snapshot.mode\": \"always",
          "a\\u0022",
          "k:9092\nlisteners=http://evil",
          "${env:X}"
        }) {
      assertThatThrownBy(() -> Placeholders.fill("\"${VIGIL_A}\"", Map.of("VIGIL_A", hostile)))
          .as(hostile)
          .hasMessageContaining("VIGIL_A");
    }
  }

  @Test
  void theShippedConnectorFilledIsJsonWithTheContractSettings() throws Exception {
    String template = Files.readString(CONNECTOR_JSON);
    Map<String, String> values = new HashMap<>();
    Matcher m = Pattern.compile("\\$\\{(VIGIL_[A-Z0-9_]+)}").matcher(template);
    while (m.find()) {
      values.put(m.group(1), "v");
    }
    JsonNode config =
        new ObjectMapper().readTree(Placeholders.fill(template, values)).get("config");
    assertThat(config.get("exactly.once.support").asText()).isEqualTo("required");
    assertThat(config.get("extended.headers.enabled").asText()).isEqualTo("false");
    assertThat(config.get("transforms.outbox.table.expand.json.payload").asText())
        .isEqualTo("false");
    for (String converter : new String[] {"key", "value", "header"}) {
      assertThat(config.get(converter + ".converter").asText())
          .isEqualTo("org.apache.kafka.connect.storage.StringConverter");
    }
    // The password only ever comes from the worker's config provider, never from a placeholder.
    assertThat(config.get("database.password").asText()).startsWith("${directory:");
  }

  @Test
  void theShippedWorkerEnablesExactlyOnceSource() throws Exception {
    assertThat(Files.readString(WORKER)).contains("\nexactly.once.source.support=enabled\n");
  }

  /**
   * The settings that let a killed worker's task deliver again within seconds (README, "Recovery
   * after a worker dies"); Connect's defaults hold the task back for minutes.
   */
  @Test
  void theShippedWorkerHandsADeadWorkersTaskOnWithoutWaitingMinutes() throws Exception {
    Properties worker = new Properties();
    try (Reader in = Files.newBufferedReader(WORKER)) {
      worker.load(in);
    }
    assertThat(worker.getProperty("scheduled.rebalance.max.delay.ms")).isEqualTo("0");
    long session = Long.parseLong(worker.getProperty("session.timeout.ms"));
    long heartbeat = Long.parseLong(worker.getProperty("heartbeat.interval.ms"));
    // 6000 ms is the broker's group.min.session.timeout.ms; Connect's default is 10000.
    assertThat(session).isBetween(6_000L, 9_999L);
    assertThat(heartbeat * 3).isLessThanOrEqualTo(session);
    assertThat(Long.parseLong(worker.getProperty("worker.unsync.backoff.ms")))
        .isLessThanOrEqualTo(10_000L);
  }
}
