package dev.vigil.relay.config;

import static dev.vigil.relay.config.RelayConfig.OFFSET_FLUSH_INTERVAL;
import static dev.vigil.relay.config.RelayConfig.POLL_INTERVAL;
import static dev.vigil.relay.config.RelayConfig.PRODUCER_LINGER;
import static dev.vigil.relay.config.RelayConfig.SLOT;
import static dev.vigil.relay.config.RelayConfig.SNAPSHOT_MODE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vigil.contract.AlertTopic;
import dev.vigil.kit.CommonSettings;
import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Setting;
import dev.vigil.kit.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    RelayConfig config = new RelayConfig(new Settings(minimal()));

    assertThat(config.topic()).isEqualTo(AlertTopic.DEFAULT_TOPIC);
    assertThat(config.get(SNAPSHOT_MODE)).isEqualTo("no_data");
    assertThat(config.get(POLL_INTERVAL)).isEqualTo(Duration.ofMillis(5));
    assertThat(config.get(PRODUCER_LINGER)).isEqualTo(Duration.ofMillis(1));
    assertThat(config.get(OFFSET_FLUSH_INTERVAL)).isEqualTo(Duration.ZERO);
    assertThat(config.get(SLOT)).isEqualTo("vigil_relay");
    assertThat(config.httpPort()).isEqualTo(8082);
    assertThat(config.dbPassword()).isEmpty();
    assertThat(config.instanceId()).isNotBlank();
  }

  @Test
  void theSlotIsAFailoverSlotUnlessSwitchedOffAndOnlyABooleanSwitchesIt() {
    assertThat(new RelayConfig(new Settings(minimal())).get(RelayConfig.SLOT_FAILOVER)).isTrue();
    Map<String, String> off = minimal();
    off.put("VIGIL_RELAY_SLOT_FAILOVER", "false");
    assertThat(new RelayConfig(new Settings(off)).get(RelayConfig.SLOT_FAILOVER)).isFalse();
    Map<String, String> bad = minimal();
    bad.put("VIGIL_RELAY_SLOT_FAILOVER", "yes please");
    assertThatThrownBy(() -> new RelayConfig(new Settings(bad)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_RELAY_SLOT_FAILOVER");
  }

  @Test
  void aMultiHostUrlIsRefusedBecauseDebeziumsReplicationConnectionTakesOneHost() {
    Map<String, String> env = minimal();
    env.put("VIGIL_DB_URL", "jdbc:postgresql://pg1:5432,pg2:5432/vigil?targetServerType=primary");

    assertThatThrownBy(() -> new RelayConfig(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_DB_URL");
  }

  @Test
  void databaseAddressIsDerivedFromTheJdbcUrl() {
    RelayConfig config = new RelayConfig(new Settings(minimal()));

    assertThat(config.dbHost()).isEqualTo("db.example");
    assertThat(config.dbPort()).isEqualTo(5433);
    assertThat(config.dbName()).isEqualTo("vigil");
  }

  @Test
  void everyBadSettingIsReportedAtOnceWithoutShowingThePassword() {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", "postgres://nope");
    env.put("VIGIL_DB_PASSWORD", "hunter2");
    env.put("VIGIL_RELAY_SLOT", "Bad-Slot");
    env.put("VIGIL_TOPIC_PARTITIONS", "0");
    env.put("VIGIL_RELAY_SNAPSHOT_MODE", "always");

    assertThatThrownBy(() -> new RelayConfig(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_DB_URL='postgres://nope' is invalid")
        .hasMessageContaining("VIGIL_DB_USER is required")
        .hasMessageContaining("VIGIL_KAFKA_BOOTSTRAP_SERVERS is required")
        .hasMessageContaining("VIGIL_RELAY_SLOT='Bad-Slot' is invalid: must be a PostgreSQL")
        .hasMessageContaining("VIGIL_TOPIC_PARTITIONS='0' is invalid: must be between 1 and")
        .hasMessageContaining("VIGIL_RELAY_SNAPSHOT_MODE='always' is invalid: must be one of")
        .message()
        .doesNotContain("hunter2");
  }

  @Test
  void toStringHidesThePasswordAndTheUrlQuery() {
    Map<String, String> env = minimal();
    env.put("VIGIL_DB_URL", "jdbc:postgresql://db:5432/vigil?sslkey=/hunter2.pk8&ssl=true");
    env.put("VIGIL_DB_PASSWORD", "s3cr3t-pw");

    String shown = new RelayConfig(new Settings(env)).toString();

    assertThat(shown)
        .contains("VIGIL_DB_URL=jdbc:postgresql://db:5432/vigil?…", "VIGIL_RELAY_SLOT=vigil_relay")
        .contains("VIGIL_DB_PASSWORD=<secret>")
        .doesNotContain("hunter2")
        .doesNotContain("s3cr3t-pw");
  }

  @Test
  void theClientKeysPasswordIsReadFromItsFileAndNeverShown(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("sslpassword");
    Files.writeString(file, "key-pw-from-file\n");
    Map<String, String> env = minimal();
    env.put("VIGIL_DB_SSLPASSWORD_FILE", file.toString());

    RelayConfig config = new RelayConfig(new Settings(env));

    assertThat(config.keyPassword()).isEqualTo("key-pw-from-file");
    assertThat(config.connectionProperties()).containsEntry("sslpassword", "key-pw-from-file");
    assertThat(config.toString()).doesNotContain("key-pw-from-file");
  }

  @Test
  void theCommonTopicDefaultIsTheContractsTopic() {
    assertThat(CommonSettings.TOPIC.defaultValue()).isEqualTo(AlertTopic.DEFAULT_TOPIC);
  }

  @Test
  void instanceIdUsesTheOneCommonKey() {
    Map<String, String> env = minimal();
    env.put("VIGIL_INSTANCE_ID", "relay-a");

    assertThat(new RelayConfig(new Settings(env)).instanceId()).isEqualTo("relay-a");
    assertThat(RelayConfig.DEFINITION.settings())
        .extracting(Setting::key)
        .contains("VIGIL_INSTANCE_ID", "VIGIL_DB_USER", "VIGIL_RELAY_SLOT")
        .doesNotHaveDuplicates();
  }
}
