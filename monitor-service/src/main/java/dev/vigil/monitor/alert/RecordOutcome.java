package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;

/**
 * What recording one result did.
 *
 * @param accepted false when the result was stale and nothing was written
 * @param rejectedReason why it was rejected, or null
 * @param state the service's state after the result (before it, when rejected)
 * @param event the alert written to the outbox, or null when the result announced nothing
 */
public record RecordOutcome(
    boolean accepted, String rejectedReason, AlertStateMachine.State state, AlertEvent event) {

  static RecordOutcome rejected(String reason, AlertStateMachine.State state) {
    return new RecordOutcome(false, reason, state, null);
  }

  static RecordOutcome accepted(AlertStateMachine.State state, AlertEvent event) {
    return new RecordOutcome(true, null, state, event);
  }
}
