package dev.vigil.monitor.alert;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * One location of a target probed from several locations, while a {@link RecordingPlan} steps
 * through its results: starts as its {@code location_state} row (or unseen), moves with every
 * accepted result of that location. Its counters run through the same {@link AlertStateMachine} as
 * a target probed from one place; the machine's "open incident" of a location is only the marker
 * {@link #FAILING} (past its failure threshold, not yet past its recovery threshold), because the
 * service's incident is decided over all locations by the {@link QuorumRule}.
 */
final class LocationRun {
  /** The state machine's "incident" of a failing location: a marker, never an incident id. */
  static final UUID FAILING = new UUID(0, 1);

  private final String name;
  private final Duration staleAfter;
  private AlertStateMachine.State state;
  private Long lastSeq;
  private Instant pushedStartedAt;
  private ProbeStatus lastStatus;
  private String lastError;
  private Instant recordedAt;
  private boolean changed;

  LocationRun(
      String name,
      Duration staleAfter,
      AlertStateMachine.State state,
      Long lastSeq,
      Instant pushedStartedAt,
      ProbeStatus lastStatus,
      String lastError,
      Instant recordedAt) {
    this.name = name;
    this.staleAfter = staleAfter;
    this.state = state;
    this.lastSeq = lastSeq;
    this.pushedStartedAt = pushedStartedAt;
    this.lastStatus = lastStatus;
    this.lastError = lastError;
    this.recordedAt = recordedAt;
  }

  /** A listed location that has not recorded a result yet (stale until it does). */
  static LocationRun unseen(String name, Duration staleAfter) {
    return new LocationRun(
        name, staleAfter, AlertStateMachine.State.INITIAL, null, null, null, null, null);
  }

  /**
   * Why {@code candidate} is older than this location's last result, or null: the same rules as a
   * service probed from one place ({@link ServiceRun#staleReason}), per location, since the claim
   * numbers of different locations interleave.
   */
  String staleReason(ProbeResult candidate) {
    return StaleResults.reason(candidate, lastSeq, pushedStartedAt, " of location " + name);
  }

  /** Runs {@code result} through the state machine with the target's thresholds and takes it. */
  void accept(ProbeResult result, long number, Instant now, StateLock.Row thresholds) {
    state =
        AlertStateMachine.apply(
                state,
                result.status(),
                thresholds.failureThreshold(),
                thresholds.recoveryThreshold(),
                FAILING)
            .next();
    lastSeq = number;
    if (result.source() == ResultSource.PUSH && result.startedAt() != null) {
      pushedStartedAt = result.startedAt();
    }
    lastStatus = result.status();
    lastError = result.error();
    recordedAt = now;
    changed = true;
  }

  /** What the quorum rule sees of this location at {@code now}. */
  QuorumRule.Location view(Instant now) {
    boolean fresh = recordedAt != null && !recordedAt.plus(staleAfter).isBefore(now);
    return new QuorumRule.Location(
        name, state.openIncident() != null, fresh, lastStatus, lastError);
  }

  String name() {
    return name;
  }

  AlertStateMachine.State state() {
    return state;
  }

  Long lastSeq() {
    return lastSeq;
  }

  Instant pushedStartedAt() {
    return pushedStartedAt;
  }

  ProbeStatus lastStatus() {
    return lastStatus;
  }

  String lastError() {
    return lastError;
  }

  /** Whether a result of this plan moved it (its row is written). */
  boolean changed() {
    return changed;
  }
}
