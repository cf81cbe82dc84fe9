package dev.vigil.kit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingsTest {
  private static final Setting<Integer> THREADS =
      Setting.integer("VIGIL_THREADS", 4).range("1", "64").doc("worker threads");
  private static final Setting<Duration> INTERVAL =
      Setting.duration("VIGIL_INTERVAL", "10s").range("100ms", "1h").doc("interval");
  private static final Setting<String> URL = Setting.string("VIGIL_URL", null).doc("database URL");
  private static final Setting<String> TOKEN = Setting.secret("VIGIL_TOKEN", "").doc("API token");

  @Test
  void defaultsApplyWhenUnsetOrBlank() {
    Settings settings = new Settings(Map.of("VIGIL_URL", "jdbc:x", "VIGIL_THREADS", " "));

    assertThat(settings.get(THREADS)).isEqualTo(4);
    assertThat(settings.get(INTERVAL)).isEqualTo(Duration.ofSeconds(10));
    assertThat(settings.get(TOKEN)).isNull();
    settings.validate();
  }

  @Test
  void durationsAcceptShortAndIsoForms() {
    assertThat(Setting.parseDuration("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(Setting.parseDuration("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(Setting.parseDuration("PT2S")).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void everyProblemIsReportedWithItsKeyAndNoSecret() {
    Settings settings =
        new Settings(
            Map.of("VIGIL_THREADS", "100", "VIGIL_INTERVAL", "soon", "VIGIL_TOKEN", "s3cr3t"));
    settings.get(THREADS);
    settings.get(INTERVAL);
    settings.get(URL);

    assertThatThrownBy(settings::validate)
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_THREADS='100' is invalid: must be between 1 and 64")
        .hasMessageContaining("VIGIL_INTERVAL='soon' is invalid: not a duration")
        .hasMessageContaining("VIGIL_URL is required");
  }

  @Test
  void secretValuesAreNeverEchoed() {
    Setting<Integer> secretNumber =
        new Setting<>("VIGIL_PIN", "0", "pin", true, raw -> Integer.parseInt(raw));

    assertThatThrownBy(() -> secretNumber.parse("12ab"))
        .hasMessage("VIGIL_PIN=<secret> is invalid: not a valid value");
  }
}
