package dev.vigil.monitor.alert;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class AlertStateMachineTest {
  private static final UUID INCIDENT = UUID.randomUUID();

  @Test
  void countersStopAtTheCap() {
    AlertStateMachine.State state =
        new AlertStateMachine.State(AlertStateMachine.COUNTER_CAP, 0, 0, INCIDENT);
    AlertStateMachine.Step step =
        AlertStateMachine.apply(state, ProbeStatus.DOWN, 3, 1, UUID.randomUUID());
    assertThat(step.next().failures()).isEqualTo(AlertStateMachine.COUNTER_CAP);
    assertThat(step.action()).isEqualTo(AlertStateMachine.Action.NONE);

    AlertStateMachine.State up =
        new AlertStateMachine.State(0, AlertStateMachine.COUNTER_CAP, 0, null);
    assertThat(AlertStateMachine.apply(up, ProbeStatus.UP, 3, 1, null).next().successes())
        .isEqualTo(AlertStateMachine.COUNTER_CAP);
  }

  @Test
  void failureWhileOpenDoesNotOpenASecondIncident() {
    AlertStateMachine.State open = new AlertStateMachine.State(3, 0, 0, INCIDENT);
    AlertStateMachine.Step step =
        AlertStateMachine.apply(open, ProbeStatus.DOWN, 3, 1, UUID.randomUUID());
    assertThat(step.action()).isEqualTo(AlertStateMachine.Action.NONE);
    assertThat(step.next().openIncident()).isEqualTo(INCIDENT);
  }

  @Test
  void thresholdOneOpensOnTheFirstFailure() {
    AlertStateMachine.Step step =
        AlertStateMachine.apply(AlertStateMachine.State.INITIAL, ProbeStatus.DOWN, 1, 1, INCIDENT);
    assertThat(step.action()).isEqualTo(AlertStateMachine.Action.OPEN);
    assertThat(step.next().openIncident()).isEqualTo(INCIDENT);
  }
}
