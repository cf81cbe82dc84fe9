package dev.vigil.monitor.targets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code slo} and {@code sloWindow} of a definition: both spellings of the objective, the window's
 * default, and every refusal naming its field, in the API's JSON and the targets file's YAML.
 */
class SloFieldsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BASE = "\"name\":\"app\",\"url\":\"http://app.internal/\"";

  @Test
  void theObjectiveIsReadAsAPercentageOrANumberWithThirtyDaysByDefault() throws Exception {
    TargetSpec percent = parse("{" + BASE + ",\"slo\":\"99.9%\"}");
    TargetSpec number = parse("{" + BASE + ",\"slo\":99.95,\"sloWindow\":\"7d\"}");
    TargetSpec none = parse("{" + BASE + "}");

    assertThat(percent.slo()).isEqualByComparingTo("99.9");
    assertThat(percent.sloWindowDays()).isEqualTo(30);
    assertThat(number.slo()).isEqualByComparingTo("99.95");
    assertThat(number.sloWindowDays()).isEqualTo(7);
    assertThat(none.slo()).isNull();
    assertThat(parse("{" + BASE + ",\"slo\":\" 95 % \"}").slo()).isEqualByComparingTo("95");
    assertThat(parse("{" + BASE + ",\"slo\":\"99.9999%\",\"sloWindow\":\"1d\"}").slo())
        .isEqualByComparingTo("99.9999");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          # case                        | extra fields (JSON)                           | field     | reason
            a hundred percent           | "slo":"100%"                                  | slo       | below 100%
            a hundred as a number       | "slo":100                                     | slo       | below 100%
            above a hundred             | "slo":"100.5%"                                | slo       | below 100%
            zero                        | "slo":0                                       | slo       | above 0%
            zero percent                | "slo":"0%"                                    | slo       | above 0%
            negative                    | "slo":-5                                      | slo       | above 0%
            negative text               | "slo":"-5%"                                   | slo       | must be a percentage
            five decimals               | "slo":"99.99999%"                             | slo       | at most 4 decimals
            a huge number               | "slo":1e400                                   | slo       | above 0%
            a tiny number               | "slo":1e-400                                  | slo       | above 0%
            a word                      | "slo":"high"                                  | slo       | must be a percentage
            two percent signs           | "slo":"99%%"                                  | slo       | must be a percentage
            a list                      | "slo":[99]                                    | slo       | must be a percentage
            a boolean                   | "slo":true                                    | slo       | must be a percentage
            NUL                         | "slo":"99\\u0000%"                             | slo       | must be a percentage
            a very long text            | "slo":"99.999999999999999999999999999999999%" | slo       | must be a percentage
            window without objective    | "sloWindow":"7d"                              | sloWindow | needs slo
            window in hours             | "slo":99,"sloWindow":"24h"                    | sloWindow | whole days
            window as a number          | "slo":99,"sloWindow":7                        | sloWindow | whole days
            window of zero days         | "slo":99,"sloWindow":"0d"                     | sloWindow | between 1d and 30d
            window of a year            | "slo":99,"sloWindow":"365d"                   | sloWindow | between 1d and 30d
            window with a fraction      | "slo":99,"sloWindow":"1.5d"                   | sloWindow | whole days
            window with NUL             | "slo":99,"sloWindow":"7d\\u0000"               | sloWindow | whole days
          """)
  void badInputIsRefusedNamingTheField(String name, String extra, String field, String reason) {
    assertThatThrownBy(() -> parse("{" + BASE + "," + extra + "}"))
        .isInstanceOf(InvalidTargetException.class)
        .hasMessageContaining("field '" + field + "'")
        .hasMessageContaining(reason);
  }

  @Test
  void theTargetsFileTakesBothSpellings(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("targets.yaml");
    Files.writeString(
        file,
        """
        targets:
          - {name: api, type: push, slo: 99.9%}
          - {name: web, type: push, slo: 99.5, sloWindow: 7d}
        """);

    var targets = TargetFile.load(file);

    assertThat(targets)
        .extracting(TargetSpec::slo)
        .usingElementComparator(BigDecimal::compareTo)
        .containsExactly(new BigDecimal("99.9"), new BigDecimal("99.5"));
    assertThat(targets).extracting(TargetSpec::sloWindowDays).containsExactly(30, 7);
  }

  @Test
  void aBadObjectiveInTheTargetsFileNamesTheTargetAndTheField(@TempDir Path dir)
      throws IOException {
    Path file = dir.resolve("targets.yaml");
    Files.writeString(file, "targets:\n  - {name: api, type: push, slo: 100%}\n");

    assertThatThrownBy(() -> TargetFile.load(file))
        .isInstanceOf(InvalidTargetException.class)
        .hasMessageContaining("'api'")
        .hasMessageContaining("field 'slo'");
  }

  @Test
  void theRecordRefusesAnObjectiveOutOfRange() {
    var builder = TargetSpec.builder("app", TargetKind.PUSH);
    assertThatThrownBy(() -> builder.slo(BigDecimal.valueOf(100), 30).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slo");
    assertThatThrownBy(() -> builder.slo(BigDecimal.valueOf(99), 31).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sloWindowDays");
  }

  private static TargetSpec parse(String json) throws Exception {
    return TargetParser.parse("request body", "", JSON.readTree(json), null);
  }
}
