package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MonitorConfigTest {

  private static Map<String, String> minimal() {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", "jdbc:postgresql://db:5432/vigil");
    env.put("VIGIL_DB_USER", "monitor");
    env.put("VIGIL_MONITOR_API_TOKEN", "api-token-123");
    return env;
  }

  @Test
  void defaultsApplyAndTheTargetsFileIsOptional() {
    MonitorConfig config = new MonitorConfig(new Settings(minimal()));

    assertThat(config.httpPort()).isEqualTo(8080);
    assertThat(config.dbPoolSize()).isEqualTo(10);
    assertThat(config.get(MonitorConfig.LEASE)).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.get(MonitorConfig.SCHEDULER_ENABLED)).isTrue();
    assertThat(config.targetsFile()).isNull();
    assertThat(config.instanceId()).isNotBlank();
  }

  @Test
  void toStringRedactsTheDatabaseUrlPasswordAndApiToken() {
    Map<String, String> env = minimal();
    env.put("VIGIL_DB_URL", "jdbc:postgresql://db:5432/vigil?user=x&password=url-pw");
    env.put("VIGIL_DB_PASSWORD", "db-pw");
    env.put("VIGIL_MONITOR_TARGETS_FILE", "/config/targets.yaml");

    MonitorConfig config = new MonitorConfig(new Settings(env));

    assertThat(config.targetsFile()).isEqualTo(Path.of("/config/targets.yaml"));
    assertThat(config.toString())
        .startsWith("MonitorConfig[")
        .contains("VIGIL_DB_URL=jdbc:postgresql://db:5432/vigil?…")
        .contains("VIGIL_MONITOR_API_TOKEN=<secret>", "VIGIL_DB_PASSWORD=<secret>")
        .contains("VIGIL_MONITOR_TARGETS_FILE=/config/targets.yaml")
        .doesNotContain("url-pw")
        .doesNotContain("db-pw")
        .doesNotContain("api-token-123");
  }

  @Test
  void aShortApiTokenIsRejectedWithoutEchoingIt() {
    Map<String, String> env = minimal();
    env.put("VIGIL_MONITOR_API_TOKEN", "short");
    env.remove("VIGIL_DB_USER");

    assertThatThrownBy(() -> new MonitorConfig(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_MONITOR_API_TOKEN=<secret> is invalid: must be at least 8")
        .hasMessageContaining("VIGIL_DB_USER is required")
        .message()
        .doesNotContain("short");
  }

  @Test
  void theLocationDefaultsToDefaultAndABadOneIsRejectedWithItsKey() {
    assertThat(new MonitorConfig(new Settings(minimal())).get(MonitorConfig.LOCATION))
        .isEqualTo("default");
    Map<String, String> env = minimal();
    env.put("VIGIL_MONITOR_LOCATION", "EU West");

    assertThatThrownBy(() -> new MonitorConfig(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_MONITOR_LOCATION")
        .hasMessageContaining("must be 1-32 characters of a-z");
  }
}
