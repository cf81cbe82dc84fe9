package dev.vigil.monitor.targets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** remindEvery and maintenance in a target definition and the file's prefix windows. */
class QuietFieldsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static TargetSpec parse(String json) throws Exception {
    return TargetParser.parse("request body", "", JSON.readTree(json.replace('\'', '"')), null);
  }

  @Test
  void remindEveryAndWindowsAreRead() throws Exception {
    TargetSpec spec =
        parse(
            "{'name':'reports','type':'push','remindEvery':'30m','maintenance':"
                + "[{'days':['sun'],'start':'02:00','length':'2h','zone':'Europe/Berlin'}]}");
    assertThat(spec.remindEvery()).isEqualTo(Duration.ofMinutes(30));
    assertThat(spec.maintenance()).hasSize(1);
    assertThat(spec.maintenance().get(0).zone().getId()).isEqualTo("Europe/Berlin");
  }

  @Test
  void remindEveryBelowOneMinuteIsRefused() {
    assertThatThrownBy(() -> parse("{'name':'reports','type':'push','remindEvery':'30s'}"))
        .isInstanceOfSatisfying(
            InvalidTargetException.class, e -> assertThat(e.field()).isEqualTo("remindEvery"));
  }

  @Test
  void aBadWindowIsRefusedNamingItsIndexAndField() {
    assertThatThrownBy(
            () ->
                parse(
                    "{'name':'reports','type':'push','maintenance':[{'days':['sun'],"
                        + "'start':'02:00','length':'2h','zone':'UTC'},{'days':['sun'],"
                        + "'start':'25:00','length':'2h','zone':'UTC'}]}"))
        .isInstanceOfSatisfying(
            InvalidTargetException.class,
            e -> assertThat(e.field()).isEqualTo("maintenance[1].start"));
    assertThatThrownBy(() -> parse("{'name':'reports','type':'push','maintenance':{}}"))
        .isInstanceOfSatisfying(
            InvalidTargetException.class, e -> assertThat(e.field()).isEqualTo("maintenance"));
  }

  @Test
  void fileWindowsNeedAPrefix(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("targets.yaml");
    Files.writeString(
        file,
        """
        targets: []
        maintenance:
          - {prefix: batch-, days: [mon], start: "23:00", length: 90m, zone: UTC}
          - {days: [mon], start: "23:00", length: 90m, zone: UTC}
        """);
    assertThatThrownBy(() -> TargetFile.loadWindows(file))
        .isInstanceOfSatisfying(
            InvalidTargetException.class,
            e -> {
              assertThat(e.field()).isEqualTo("prefix");
              assertThat(e.getMessage()).contains("maintenance #2");
            });
    Files.writeString(
        file,
        """
        targets: []
        maintenance:
          - {prefix: batch-, days: [mon], start: "23:00", length: 90m, zone: UTC}
        """);
    assertThat(TargetFile.loadWindows(file))
        .singleElement()
        .extracting("prefix")
        .isEqualTo("batch-");
  }
}
