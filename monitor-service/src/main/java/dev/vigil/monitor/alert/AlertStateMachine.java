package dev.vigil.monitor.alert;

import java.util.UUID;

/**
 * The alert rule as a pure function: N consecutive DOWN open an incident (FAILED), further DOWN
 * while it is open announce nothing, M consecutive UP close it (RECOVERED). Counters are capped at
 * {@link #COUNTER_CAP} so a service that is down for months cannot overflow them.
 */
public final class AlertStateMachine {
  /** Upper bound of the consecutive counters. */
  public static final int COUNTER_CAP = 10_000;

  private AlertStateMachine() {}

  /**
   * Counters and incident of one service.
   *
   * @param failures consecutive DOWN results
   * @param successes consecutive UP results
   * @param failuresBeforeSuccesses the failure streak the current UP streak ended (reported on
   *     RECOVERED)
   * @param openIncident the open incident, or null
   */
  public record State(int failures, int successes, int failuresBeforeSuccesses, UUID openIncident) {
    public static final State INITIAL = new State(0, 0, 0, null);
  }

  /** What a result does to the incident. */
  public enum Action {
    NONE,
    OPEN,
    CLOSE
  }

  /** The next state and the action that leads to it. */
  public record Step(State next, Action action) {}

  /**
   * Applies one result. On {@link Action#OPEN} the caller assigns the incident id ({@code
   * next.openIncident()} is {@code newIncident}); on {@link Action#CLOSE} it is null.
   */
  public static Step apply(
      State state,
      ProbeStatus status,
      int failureThreshold,
      int recoveryThreshold,
      UUID newIncident) {
    if (status == ProbeStatus.DOWN) {
      int failures = Math.min(state.failures() + 1, COUNTER_CAP);
      if (state.openIncident() == null && failures >= failureThreshold) {
        return new Step(new State(failures, 0, 0, newIncident), Action.OPEN);
      }
      return new Step(new State(failures, 0, 0, state.openIncident()), Action.NONE);
    }
    int successes = Math.min(state.successes() + 1, COUNTER_CAP);
    int before = state.successes() == 0 ? state.failures() : state.failuresBeforeSuccesses();
    if (state.openIncident() != null && successes >= recoveryThreshold) {
      return new Step(new State(0, successes, before, null), Action.CLOSE);
    }
    return new Step(new State(0, successes, before, state.openIncident()), Action.NONE);
  }
}
