package dev.vigil.kit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigDefTest {
  static final Setting<Integer> WORKERS =
      Setting.integer("VIGIL_TEST_WORKERS", 4).range("1", "64").doc("Worker threads.");
  static final Setting<Duration> LEASE =
      Setting.duration("VIGIL_TEST_LEASE", "30s").range("1s", "1h").doc("Lease.");
  static final Setting<Duration> TIMEOUT =
      Setting.duration("VIGIL_TEST_TIMEOUT", "5s").range("1ms", "1h").doc("Timeout.");
  static final Setting<String> MODE =
      Setting.string("VIGIL_TEST_MODE", "a").oneOf("a", "b").doc("Mode.");
  static final Setting<String> TOKEN = Setting.secret("VIGIL_TEST_TOKEN", null).doc("Token.");
  static final ConfigDef DEFINITION =
      ConfigDef.of(
              CommonSettings.DB_URL,
              CommonSettings.DB_PASSWORD,
              CommonSettings.INSTANCE_ID,
              WORKERS,
              LEASE,
              TIMEOUT,
              MODE,
              TOKEN)
          .rule(LEASE + " must exceed " + TIMEOUT, v -> v.get(LEASE).compareTo(v.get(TIMEOUT)) > 0);

  private static Map<String, String> valid() {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", "jdbc:postgresql://db:5432/vigil");
    env.put("VIGIL_TEST_TOKEN", "t0ken-value");
    return env;
  }

  @Test
  void everyProblemIsListedOnceWithItsKeyAndNeverASecret() {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", "jdbc:postgresql://db:5432/vigil?password=url-secret x");
    env.put("VIGIL_DB_PASSWORD", "pw-secret");
    env.put("VIGIL_TEST_WORKERS", "65");
    env.put("VIGIL_TEST_LEASE", "99999999999999999999h");
    env.put("VIGIL_TEST_MODE", "c");

    assertThatThrownBy(() -> DEFINITION.parse(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_DB_URL='jdbc:postgresql://db:5432/vigil?…' is invalid")
        .hasMessageContaining("VIGIL_TEST_WORKERS='65' is invalid: must be between 1 and 64")
        .hasMessageContaining("VIGIL_TEST_LEASE=")
        .hasMessageContaining("VIGIL_TEST_MODE='c' is invalid: must be one of a, b")
        .hasMessageContaining("VIGIL_TEST_TOKEN is required")
        .message()
        .doesNotContain("url-secret")
        .doesNotContain("pw-secret");
  }

  @Test
  void crossFieldRulesRunOnceEverySettingIsValid() {
    Map<String, String> env = valid();
    env.put("VIGIL_TEST_LEASE", "2s");
    env.put("VIGIL_TEST_TIMEOUT", "2s");

    assertThatThrownBy(() -> DEFINITION.parse(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessage("invalid configuration: VIGIL_TEST_LEASE must exceed VIGIL_TEST_TIMEOUT");
  }

  @Test
  void valuesAreTypedDefaultedAndShownWithoutSecrets() {
    Values values = DEFINITION.parse(new Settings(valid()));

    assertThat(values.get(WORKERS)).isEqualTo(4);
    assertThat(values.get(LEASE)).isEqualTo(Duration.ofSeconds(30));
    assertThat(values.get(CommonSettings.INSTANCE_ID)).isNotBlank();
    assertThat(values.get(CommonSettings.DB_PASSWORD)).isNull();
    assertThat(values.toString())
        .contains("VIGIL_TEST_WORKERS=4", "VIGIL_TEST_TOKEN=<secret>", "VIGIL_DB_PASSWORD=(none)")
        .doesNotContain("t0ken-value");
    assertThatThrownBy(() -> values.get(CommonSettings.TOPIC))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("VIGIL_TOPIC is not a setting of this service");
  }

  @Test
  void readmeRowsComeFromTheDeclaration() {
    assertThat(DEFINITION.markdownRows())
        .contains(
            "| `VIGIL_TEST_WORKERS` | `4` | Worker threads. (must be between 1 and 64) |",
            "| `VIGIL_TEST_TOKEN` | **required** | Token. Secret; or the path of a file holding it in"
                + " `VIGIL_TEST_TOKEN_FILE`. |",
            "| `VIGIL_INSTANCE_ID` | (computed) | " + CommonSettings.INSTANCE_ID.doc() + " |")
        .hasSize(DEFINITION.settings().size());
    assertThat(DEFINITION.ruleTexts())
        .containsExactly("VIGIL_TEST_LEASE must exceed VIGIL_TEST_TIMEOUT");
  }

  @Test
  void aKeyDeclaredTwiceOrWithoutDocIsAProgrammingError() {
    assertThatThrownBy(() -> ConfigDef.of(WORKERS, WORKERS.withDefault("8")))
        .hasMessageContaining("VIGIL_TEST_WORKERS is declared twice");
    assertThatThrownBy(() -> ConfigDef.of(Setting.string("VIGIL_TEST_X", "")))
        .hasMessageContaining("VIGIL_TEST_X has no doc");
  }

  @Test
  void hostileJdbcUrlsAreRejectedBeforeAnyoneParsesThem() {
    for (String url :
        new String[] {
          "jdbc:postgresql://db/vigil x",
          "jdbc:postgresql://user:pw@db/vigil",
          "jdbc:postgresql://db:99999999/vigil",
          "jdbc:postgresql://d[b/vigil",
          "jdbc:mysql://db/vigil",
          "jdbc:postgresql://db/"
        }) {
      Map<String, String> env = valid();
      env.put("VIGIL_DB_URL", url);
      assertThatThrownBy(() -> DEFINITION.parse(new Settings(env)))
          .as(url)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("VIGIL_DB_URL=");
    }
  }
}
