package dev.vigil.monitor.targets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code dependsOn} and {@code dependencySettle} of a definition: what the file and the API accept,
 * their defaults, every refusal naming its field, and cycles in the targets file.
 */
class DependencyFieldsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BASE = "\"name\":\"app\",\"url\":\"http://app.internal/\"";

  @Test
  void parentsAreKeptInOrderUnknownOnesIncludedAndSettleDefaultsToTheInterval() throws Exception {
    TargetSpec target =
        parse("{" + BASE + ",\"interval\":\"10s\",\"dependsOn\":[\"gateway\",\"not-yet\"]}");
    TargetSpec settled =
        parse("{" + BASE + ",\"dependsOn\":[\"gateway\"],\"dependencySettle\":\"45s\"}");

    assertThat(target.dependsOn()).containsExactly("gateway", "not-yet");
    assertThat(target.effectiveDependencySettle()).isEqualTo(Duration.ofSeconds(10));
    assertThat(settled.effectiveDependencySettle()).isEqualTo(Duration.ofSeconds(45));
    assertThat(parse("{" + BASE + "}").dependsOn()).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          # case                       | extra fields (JSON)                                 | field            | reason
            not a list                   | "dependsOn":"gateway"                               | dependsOn        | must be a list
            an object                    | "dependsOn":{"a":1}                                 | dependsOn        | must be a list
            not a string                 | "dependsOn":[7]                                     | dependsOn[0]     | must be a string
            null element                 | "dependsOn":["gw",null]                             | dependsOn[1]     | must be a string
            itself                       | "dependsOn":["gw","app"]                            | dependsOn[1]     | cannot depend on itself
            listed twice                 | "dependsOn":["gw","gw"]                             | dependsOn[1]     | listed twice
            upper case                   | "dependsOn":["Gateway"]                             | dependsOn[0]     | must be a target name
            empty name                   | "dependsOn":[""]                                    | dependsOn[0]     | must be a target name
            NUL in a name                | "dependsOn":["gw\\u0000x"]                           | dependsOn[0]     | control characters
            line break in a name         | "dependsOn":["gw\\nx"]                               | dependsOn[0]     | control characters
            settle without parents       | "dependencySettle":"10s"                            | dependencySettle | needs dependsOn
            settle without a unit        | "dependsOn":["gw"],"dependencySettle":10            | dependencySettle | needs a unit
            settle above an hour         | "dependsOn":["gw"],"dependencySettle":"2h"          | dependencySettle | between
          """)
  void badInputIsRefusedNamingTheField(String name, String extra, String field, String reason) {
    assertThatThrownBy(() -> parse("{" + BASE + "," + extra + "}"))
        .isInstanceOf(InvalidTargetException.class)
        .hasMessageContaining("field '" + field + "'")
        .hasMessageContaining(reason);
  }

  @Test
  void moreThan32ParentsAreRefused() throws Exception {
    String parents =
        IntStream.rangeClosed(1, 33)
            .mapToObj(i -> "\"p" + i + "\"")
            .collect(Collectors.joining(","));
    String exactly32 =
        IntStream.rangeClosed(1, 32)
            .mapToObj(i -> "\"p" + i + "\"")
            .collect(Collectors.joining(","));

    assertThatThrownBy(() -> parse("{" + BASE + ",\"dependsOn\":[" + parents + "]}"))
        .hasMessageContaining("field 'dependsOn'")
        .hasMessageContaining("more than 32");
    assertThat(parse("{" + BASE + ",\"dependsOn\":[" + exactly32 + "]}").dependsOn()).hasSize(32);
  }

  @Test
  void aCycleInTheTargetsFileIsRefusedNamingIt(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("targets.yaml");
    Files.writeString(
        file,
        """
        targets:
          - {name: edge, type: push, dependsOn: [gateway]}
          - {name: gateway, type: push, dependsOn: [db]}
          - {name: db, type: push, dependsOn: [edge]}
          - {name: other, type: push, dependsOn: [db]}
        """);

    assertThatThrownBy(() -> TargetFile.load(file))
        .isInstanceOf(InvalidTargetException.class)
        .hasMessageContaining("field 'dependsOn'")
        .hasMessageContaining("dependency cycle: db -> edge -> gateway -> db");
  }

  private static TargetSpec parse(String json) throws Exception {
    return TargetParser.parse("request body", "", JSON.readTree(json), null);
  }
}
