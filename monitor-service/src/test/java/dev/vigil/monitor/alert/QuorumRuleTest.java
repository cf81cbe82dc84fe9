package dev.vigil.monitor.alert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.monitor.alert.AlertStateMachine.Action;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every case of the quorum rule as one row. Each location is one letter: {@code F} fresh and
 * failing, {@code u} fresh and not failing, {@code s} stale and failing (its last state before it
 * went quiet), {@code x} stale and not failing. The open column says whether the service's incident
 * was open before.
 */
class QuorumRuleTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # case                                              | locations | quorum | open  | action | failing | fresh | degraded
            all up                                              | uuu       | 2      | false | NONE   | 0       | 3     | false
            one location failing is below the quorum            | Fuu       | 2      | false | NONE   | 1       | 3     | false
            two of three failing open                           | FFu       | 2      | false | OPEN   | 2       | 3     | false
            all failing open with quorum three                  | FFF       | 3      | false | OPEN   | 3       | 3     | false
            two failing stay below quorum three                 | FFu       | 3      | false | NONE   | 2       | 3     | false
            quorum one is one place: a single failure opens     | Fuu       | 1      | false | OPEN   | 1       | 3     | false
            still a quorum failing keeps it open                | FFu       | 2      | true  | NONE   | 2       | 3     | false
            fewer than the quorum failing closes                | Fuu       | 2      | true  | CLOSE  | 1       | 3     | false
            none failing closes                                 | uuu       | 2      | true  | CLOSE  | 0       | 3     | false
            a stale failing location does not count to open     | sFu       | 2      | false | NONE   | 1       | 2     | false
            a stale failing location does not hold a close back | sFu       | 2      | true  | CLOSE  | 1       | 2     | false
            a stale location does not close by going quiet      | xFF       | 2      | true  | NONE   | 2       | 2     | false
            fewer fresh locations than the quorum is degraded   | xxF       | 2      | false | NONE   | 1       | 1     | true
            degraded with an open incident closes it            | sxF       | 2      | true  | CLOSE  | 1       | 1     | true
            a fourth location (remote checker) counts           | FuuF      | 2      | false | OPEN   | 2       | 4     | false
            no location fresh at all is degraded                | sxx       | 1      | false | NONE   | 0       | 0     | true
          """)
  void decision(
      String name,
      String locations,
      int quorum,
      boolean open,
      Action action,
      int failing,
      int fresh,
      boolean degraded) {
    QuorumRule.Verdict verdict = QuorumRule.decide(locations(locations), quorum, open);

    assertThat(verdict).isEqualTo(new QuorumRule.Verdict(action, failing, fresh, degraded));
  }

  @Test
  void verdictsNameEveryFreshLocationWithItsErrorOrUp() {
    List<QuorumRule.Location> locations =
        List.of(
            new QuorumRule.Location("eu-west", true, true, ProbeStatus.DOWN, "HTTP 503"),
            new QuorumRule.Location("us-east", false, true, ProbeStatus.UP, null),
            new QuorumRule.Location("ap-south", true, false, ProbeStatus.DOWN, "timeout"),
            new QuorumRule.Location("remote", false, true, ProbeStatus.DOWN, null));

    assertThat(QuorumRule.verdicts(locations))
        .containsExactly(
            Map.entry("eu-west", "HTTP 503"),
            Map.entry("remote", "down"),
            Map.entry("us-east", "up"));
  }

  private static List<QuorumRule.Location> locations(String cells) {
    List<QuorumRule.Location> locations = new ArrayList<>();
    for (int i = 0; i < cells.length(); i++) {
      char c = cells.charAt(i);
      boolean failing = c == 'F' || c == 's';
      boolean fresh = c == 'F' || c == 'u';
      locations.add(
          new QuorumRule.Location(
              "l" + i,
              failing,
              fresh,
              failing ? ProbeStatus.DOWN : ProbeStatus.UP,
              failing ? "down" : null));
    }
    return locations;
  }
}
