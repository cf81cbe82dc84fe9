package dev.vigil.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.kit.Setting;
import dev.vigil.monitor.MonitorConfig;
import dev.vigil.notifier.NotifierConfig;
import dev.vigil.receiver.ReceiverConfig;
import dev.vigil.relay.config.RelayConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The README's configuration reference is the code's: every setting of every service appears there
 * with its real default and meaning. When a setting changes, the test writes the expected tables to
 * {@code target/config-reference.md} to paste into the README.
 */
class ConfigReferenceTest {
  private static final Map<String, List<Setting<?>>> SECTIONS = new LinkedHashMap<>();

  static {
    SECTIONS.put("monitor-service", MonitorConfig.SETTINGS);
    SECTIONS.put("cdc-relay", RelayConfig.SETTINGS);
    SECTIONS.put("notifier-consumer", NotifierConfig.SETTINGS);
    SECTIONS.put("reference receiver", ReceiverConfig.SETTINGS);
  }

  @Test
  void readmeDocumentsEverySettingWithItsDefault() throws IOException {
    String readme = Files.readString(Path.of("../../README.md"));
    StringBuilder expected = new StringBuilder();
    SECTIONS.forEach(
        (service, settings) -> {
          expected.append("#### ").append(service).append("\n\n");
          expected.append("| key | default | meaning |\n|---|---|---|\n");
          settings.forEach(setting -> expected.append(row(setting)).append('\n'));
          expected.append('\n');
        });
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target/config-reference.md"), expected);

    SECTIONS.values().stream()
        .flatMap(List::stream)
        .forEach(
            setting ->
                assertThat(readme)
                    .as("README row for %s (see target/config-reference.md)", setting.key())
                    .contains(row(setting)));
  }

  static String row(Setting<?> setting) {
    String defaultValue;
    if (setting.required()) {
      defaultValue = "**required**";
    } else if (setting.defaultValue().isEmpty()) {
      defaultValue = "(none)";
    } else {
      defaultValue = "`" + setting.defaultValue() + "`";
    }
    return "| `"
        + setting.key()
        + "` | "
        + defaultValue
        + " | "
        + setting.doc().replace("|", "\\|")
        + " |";
  }
}
