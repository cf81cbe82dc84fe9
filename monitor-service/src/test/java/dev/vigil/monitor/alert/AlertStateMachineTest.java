package dev.vigil.monitor.alert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.monitor.alert.AlertStateMachine.Action;
import dev.vigil.monitor.alert.AlertStateMachine.State;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every transition of the alert rule as one row: the state before (consecutive failures, successes,
 * the failure streak the UP streak ended, the open incident), the result and the thresholds, then
 * the state after and the action. In the incident columns {@code -} is none, {@code old} the
 * incident open before, {@code new} the id offered for a new one (offered on every step: only an
 * OPEN may take it).
 */
class AlertStateMachineTest {
  private static final UUID OLD = UUID.fromString("00000000-0000-0000-0000-00000000000a");
  private static final UUID NEW = UUID.fromString("00000000-0000-0000-0000-00000000000b");
  private static final int CAP = AlertStateMachine.COUNTER_CAP;

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # before: consecutive DOWN, consecutive UP, the DOWN streak the UPs ended, incident;
          # then the result and the thresholds N (open) and M (close); then the state after.
          # case                                            | fails | ups | ended | inc | result | N | M   | fails | ups | ended | inc | action
            first DOWN counts                               | 0     | 0   | 0     | -   | DOWN   | 3 | 1   | 1     | 0   | 0     | -   | NONE
            DOWN below the threshold counts                 | 1     | 0   | 0     | -   | DOWN   | 3 | 1   | 2     | 0   | 0     | -   | NONE
            Nth consecutive DOWN opens                      | 2     | 0   | 0     | -   | DOWN   | 3 | 1   | 3     | 0   | 0     | new | OPEN
            threshold one opens on the first DOWN           | 0     | 0   | 0     | -   | DOWN   | 1 | 1   | 1     | 0   | 0     | new | OPEN
            DOWN after UPs opens from one again             | 0     | 5   | 2     | -   | DOWN   | 1 | 1   | 1     | 0   | 0     | new | OPEN
            DOWN while open opens no second incident        | 3     | 0   | 0     | old | DOWN   | 3 | 1   | 4     | 0   | 0     | old | NONE
            DOWN while open and recovering resets the UPs   | 0     | 1   | 4     | old | DOWN   | 3 | 2   | 1     | 0   | 0     | old | NONE
            DOWN at the cap stays at the cap                | CAP   | 0   | 0     | old | DOWN   | 3 | 1   | CAP   | 0   | 0     | old | NONE
            DOWN at the cap without incident opens          | CAP   | 0   | 0     | -   | DOWN   | 3 | 1   | CAP   | 0   | 0     | new | OPEN
            first UP ends a DOWN streak, keeps its length   | 2     | 0   | 0     | -   | UP     | 3 | 1   | 0     | 1   | 2     | -   | NONE
            further UP keeps the length of the ended streak | 0     | 1   | 2     | -   | UP     | 3 | 1   | 0     | 2   | 2     | -   | NONE
            UP without incident never closes                | 0     | 0   | 0     | -   | UP     | 3 | 1   | 0     | 1   | 0     | -   | NONE
            Mth consecutive UP closes                       | 5     | 0   | 0     | old | UP     | 3 | 1   | 0     | 1   | 5     | -   | CLOSE
            UP below the recovery threshold keeps it open   | 5     | 0   | 0     | old | UP     | 3 | 2   | 0     | 1   | 5     | old | NONE
            second UP reaches recovery threshold two        | 0     | 1   | 5     | old | UP     | 3 | 2   | 0     | 2   | 5     | -   | CLOSE
            UP after DOWN-UP-DOWN reports the last streak   | 1     | 0   | 0     | old | UP     | 3 | 2   | 0     | 1   | 1     | old | NONE
            UP at the cap stays at the cap                  | 0     | CAP | 0     | -   | UP     | 3 | 1   | 0     | CAP | 0     | -   | NONE
            UP at the cap closes an open incident           | 0     | CAP | 7     | old | UP     | 3 | CAP | 0     | CAP | 7     | -   | CLOSE
          """)
  void transition(
      String name,
      String failures,
      String successes,
      int before,
      String incident,
      ProbeStatus result,
      int failureThreshold,
      String recoveryThreshold,
      String nextFailures,
      String nextSuccesses,
      int nextBefore,
      String nextIncident,
      Action action) {
    State state = new State(count(failures), count(successes), before, incident(incident));

    AlertStateMachine.Step step =
        AlertStateMachine.apply(state, result, failureThreshold, count(recoveryThreshold), NEW);

    assertThat(step.action()).as("action").isEqualTo(action);
    assertThat(step.next())
        .as("next state")
        .isEqualTo(
            new State(
                count(nextFailures), count(nextSuccesses), nextBefore, incident(nextIncident)));
  }

  private static int count(String cell) {
    return cell.equals("CAP") ? CAP : Integer.parseInt(cell);
  }

  private static UUID incident(String cell) {
    return switch (cell) {
      case "-" -> null;
      case "old" -> OLD;
      case "new" -> NEW;
      default -> throw new IllegalArgumentException("incident cell '" + cell + "'");
    };
  }
}
