package dev.vigil.kit.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LogFormatTest {
  private static String appenderFor(String value) {
    LogFormat format = new LogFormat(key -> Map.of(LogFormat.KEY, value).get(key));
    format.setContext(new LoggerContext());
    return format.getPropertyValue();
  }

  @Test
  void selectsTheJsonAppenderOnlyWhenAskedFor() {
    assertThat(appenderFor("json")).isEqualTo("VIGIL_json");
    assertThat(appenderFor(" JSON ")).isEqualTo("VIGIL_json");
    assertThat(appenderFor("text")).isEqualTo("VIGIL_text");
    assertThat(new LogFormat(key -> null).getPropertyValue()).isEqualTo("VIGIL_text");
  }

  @Test
  void keepsTextForAnUnknownValueSoATypoNeverSilencesTheLogs() {
    LoggerContext context = new LoggerContext();
    LogFormat format = new LogFormat(key -> "jsno");
    format.setContext(context);

    assertThat(format.getPropertyValue()).isEqualTo("VIGIL_text");
    assertThat(context.getStatusManager().getCopyOfStatusList())
        .anySatisfy(s -> assertThat(s.getMessage()).contains("VIGIL_LOG_FORMAT='jsno' is invalid"));
  }
}
