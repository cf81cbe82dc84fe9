package dev.vigil.monitor.targets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code locations}, {@code quorum} and {@code retryInterval} of a definition: what the file and
 * the API accept, their defaults, and every refusal naming its field.
 */
class LocationFieldsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BASE = "\"name\":\"web\",\"url\":\"http://web.internal/\"";

  @Test
  void withoutLocationsTheTargetIsProbedFromOnePlaceAtItsInterval() throws Exception {
    TargetSpec target = parse("{" + BASE + ",\"interval\":\"10s\"}");

    assertThat(target.located()).isFalse();
    assertThat(target.effectiveQuorum()).isZero();
    assertThat(target.effectiveRetryInterval()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void quorumDefaultsToAMajorityAndUnknownLocationNamesAreAllowed() throws Exception {
    TargetSpec three = parse("{" + BASE + ",\"locations\":[\"eu-west\",\"us-east\",\"mars-1\"]}");
    TargetSpec four =
        parse("{" + BASE + ",\"locations\":[\"a\",\"b\",\"c\",\"d\"],\"retryInterval\":\"2s\"}");

    assertThat(three.locations()).containsExactly("eu-west", "us-east", "mars-1");
    assertThat(three.effectiveQuorum()).isEqualTo(2);
    assertThat(four.effectiveQuorum()).isEqualTo(3);
    assertThat(four.effectiveRetryInterval()).isEqualTo(Duration.ofSeconds(2));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          # case                          | extra fields (JSON)                                       | field            | reason
            empty list                      | "locations":[]                                            | locations        | must not be empty
            not a list                      | "locations":"eu-west"                                     | locations        | must be a list
            upper case name                 | "locations":["EU-West"]                                   | locations[0]     | a-z, 0-9
            name starting with a dash       | "locations":["eu","-us"]                                  | locations[1]     | starting with a letter or digit
            name too long                   | "locations":["abcdefghijklmnopqrstuvwxyz0123456"]         | locations[0]     | 1-32 characters
            NUL in a name                   | "locations":["eu\\u0000west"]                              | locations[0]     | control characters
            line break in a name            | "locations":["eu\\nwest"]                                  | locations[0]     | control characters
            name listed twice               | "locations":["eu","eu"]                                   | locations[1]     | listed twice
            not a string                    | "locations":[7]                                           | locations[0]     | must be a string
            quorum zero                     | "locations":["a","b","c"],"quorum":0                      | quorum           | between 1 and 3
            quorum above the locations      | "locations":["a","b","c"],"quorum":4                      | quorum           | between 1 and 3
            quorum without locations        | "quorum":1                                                | quorum           | needs locations
            retryInterval under 1 s         | "retryInterval":"500ms"                                   | retryInterval    | between 1s
            retryInterval above interval    | "interval":"10s","retryInterval":"20s"                    | retryInterval    | must not exceed the interval
            retryInterval without a unit    | "retryInterval":2                                         | retryInterval    | needs a unit
          """)
  void badInputIsRefusedNamingTheField(String name, String extra, String field, String reason) {
    assertThatThrownBy(() -> parse("{" + BASE + "," + extra + "}"))
        .isInstanceOf(InvalidTargetException.class)
        .hasMessageContaining("field '" + field + "'")
        .hasMessageContaining(reason);
  }

  @Test
  void aPushTargetWithAHeartbeatTakesNoLocations() {
    assertThatThrownBy(
            () ->
                parse(
                    "{\"name\":\"nightly\",\"type\":\"push\",\"heartbeat\":\"1m\","
                        + "\"locations\":[\"eu\"]}"))
        .hasMessageContaining("field 'locations'");
  }

  @Test
  void theStoredFormKeepsLocationsQuorumAndRetryInterval() throws Exception {
    TargetSpec target =
        parse(
            "{"
                + BASE
                + ",\"locations\":[\"eu\",\"us\"],\"quorum\":1,\"interval\":\"10s\","
                + "\"retryInterval\":\"2s\"}");

    assertThat(target.toBuilder().build()).isEqualTo(target);
    assertThat(target.locations()).isEqualTo(List.of("eu", "us"));
    assertThat(target.quorum()).isEqualTo(1);
  }

  private static TargetSpec parse(String json) throws Exception {
    JsonNode node = JSON.readTree(json);
    return TargetParser.parse("request body", "", node, null);
  }
}
