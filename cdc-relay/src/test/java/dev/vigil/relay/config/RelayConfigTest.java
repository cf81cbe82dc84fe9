package dev.vigil.relay.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Settings;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RelayConfigTest {

  private static Map<String, String> minimal() {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", "jdbc:postgresql://db.example:5433/vigil?sslmode=require");
    env.put("VIGIL_DB_USER", "relay");
    env.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", "kafka:9092");
    return env;
  }

  @Test
  void defaultsFavourLowLatencyAndNoReplayOfHistory() {
    RelayConfig config = RelayConfig.from(new Settings(minimal()));

    assertThat(config.topic()).isEqualTo("vigil.alerts");
    assertThat(config.snapshotMode()).isEqualTo("no_data");
    assertThat(config.pollInterval()).isEqualTo(Duration.ofMillis(5));
    assertThat(config.producerLinger()).isEqualTo(Duration.ofMillis(1));
    assertThat(config.offsetFlushInterval()).isEqualTo(Duration.ZERO);
    assertThat(config.slotName()).isEqualTo("vigil_relay");
    assertThat(config.dbPassword()).isEmpty();
    assertThat(config.instanceId()).isNotBlank();
  }

  @Test
  void databaseAddressIsDerivedFromTheJdbcUrl() {
    RelayConfig config = RelayConfig.from(new Settings(minimal()));

    assertThat(config.dbHost()).isEqualTo("db.example");
    assertThat(config.dbPort()).isEqualTo(5433);
    assertThat(config.dbName()).isEqualTo("vigil");
  }

  @Test
  void everyBadSettingIsReportedAtOnceWithoutShowingThePassword() {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", "postgres://nope");
    env.put("VIGIL_DB_PASSWORD", "hunter2");
    env.put("VIGIL_RELAY_SLOT_NAME", "Bad-Slot");
    env.put("VIGIL_TOPIC_PARTITIONS", "0");
    env.put("VIGIL_RELAY_SNAPSHOT_MODE", "always");

    assertThatThrownBy(() -> RelayConfig.from(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_DB_URL")
        .hasMessageContaining("VIGIL_DB_USER is required")
        .hasMessageContaining("VIGIL_KAFKA_BOOTSTRAP_SERVERS is required")
        .hasMessageContaining("VIGIL_RELAY_SLOT_NAME")
        .hasMessageContaining("VIGIL_TOPIC_PARTITIONS")
        .hasMessageContaining("VIGIL_RELAY_SNAPSHOT_MODE")
        .message()
        .doesNotContain("hunter2");
  }

  @Test
  void everySettingIsListedForTheReference() {
    assertThat(RelayConfig.SETTINGS)
        .extracting(s -> s.key())
        .contains(
            "VIGIL_DB_URL",
            "VIGIL_DB_USER",
            "VIGIL_DB_PASSWORD",
            "VIGIL_KAFKA_BOOTSTRAP_SERVERS",
            "VIGIL_TOPIC",
            "VIGIL_TOPIC_PARTITIONS",
            "VIGIL_TOPIC_REPLICATION_FACTOR",
            "VIGIL_RELAY_SLOT_NAME",
            "VIGIL_RELAY_PUBLICATION",
            "VIGIL_HTTP_PORT",
            "VIGIL_RELAY_OFFSET_FLUSH_INTERVAL",
            "VIGIL_RELAY_INSTANCE_ID")
        .doesNotHaveDuplicates();
  }
}
