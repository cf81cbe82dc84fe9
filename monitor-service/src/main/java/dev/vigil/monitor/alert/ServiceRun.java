package dev.vigil.monitor.alert;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * One service's running state while a {@link RecordingPlan} steps through its results: starts as
 * the locked row, moves with every accepted result; afterwards, what the service's state and health
 * rows become (its last accepted result).
 */
final class ServiceRun {
  private final StateLock.Row locked;
  private AlertStateMachine.State state;
  private Long lastSeq;
  private Instant pushedStartedAt;
  private String lastError;
  private ProbeResult result;
  private Instant startedAt;
  private boolean statusChanged;
  private final Map<String, LocationRun> locations;

  /**
   * @param locations a located target's locations by name (mutable: a location without a row yet
   *     joins when its first result arrives); empty for a target probed from one place
   */
  ServiceRun(StateLock.Row locked, Map<String, LocationRun> locations) {
    this.locked = locked;
    this.locations = locations;
    this.state = locked.state();
    this.lastSeq = locked.lastResultSeq();
    this.pushedStartedAt = locked.lastPushedStartedAt();
    this.lastError = locked.lastError();
  }

  /**
   * Why {@code candidate} is older than the last result of this service, or null if it is newer:
   * its claim number is not above the last one, or, pushed with the checker's own startedAt, that
   * time is not after the checker's last one (an external checker's clock is compared only with
   * itself).
   */
  String staleReason(ProbeResult candidate) {
    return StaleResults.reason(candidate, lastSeq, pushedStartedAt, "");
  }

  /** Takes an accepted result: its state after the state machine, number and start time. */
  void accept(ProbeResult accepted, AlertStateMachine.State next, long number, Instant started) {
    if (accepted.error() != null) {
      lastError = accepted.error();
    }
    ProbeStatus before = result == null ? null : status();
    if (accepted.source() == ResultSource.PUSH && accepted.startedAt() != null) {
      pushedStartedAt = accepted.startedAt();
    }
    state = next;
    // Located results of different locations interleave their claim numbers: never go back.
    lastSeq = lastSeq == null ? number : Math.max(lastSeq, number);
    result = accepted;
    startedAt = started;
    if (before != null && before != status()) {
      statusChanged = true;
    }
  }

  /**
   * The service's status as its health row shows it: the last result's, or for a located target the
   * quorum's verdict (DOWN while its incident is open), since one location's result is not the
   * service's.
   */
  ProbeStatus status() {
    if (!locked.located()) {
      return result.status();
    }
    return state.openIncident() != null ? ProbeStatus.DOWN : ProbeStatus.UP;
  }

  /** The error the health row shows: the last result's, or the last one while located DOWN. */
  String healthError() {
    if (!locked.located()) {
      return result.error();
    }
    return status() == ProbeStatus.DOWN ? lastError : null;
  }

  /**
   * A located result's step: the service's incident decided by the {@link QuorumRule}, and the
   * per-location verdicts an event it writes carries (null when it writes none).
   */
  record Located(AlertStateMachine.Step step, Map<String, String> verdicts) {}

  /**
   * Runs a result of {@code location} through that location's counters, then decides the service's
   * incident over every location at {@code now}. The service's counters become those of {@code
   * location} (what its FAILED or RECOVERED reports); {@code newIncident} is the id offered for an
   * incident this opens.
   */
  Located stepLocated(
      LocationRun location, ProbeResult result, long order, Instant now, UUID newIncident) {
    location.accept(result, order, now, locked);
    List<QuorumRule.Location> views = locations().stream().map(l -> l.view(now)).toList();
    UUID before = state.openIncident();
    QuorumRule.Verdict verdict = QuorumRule.decide(views, locked.quorum(), before != null);
    UUID incident =
        switch (verdict.action()) {
          case OPEN -> newIncident != null ? newIncident : UUID.randomUUID();
          case CLOSE -> null;
          case NONE -> before;
        };
    AlertStateMachine.State counters = location.state();
    AlertStateMachine.Step step =
        new AlertStateMachine.Step(
            new AlertStateMachine.State(
                counters.failures(),
                counters.successes(),
                counters.failuresBeforeSuccesses(),
                incident),
            verdict.action());
    return new Located(
        step,
        verdict.action() == AlertStateMachine.Action.NONE ? null : QuorumRule.verdicts(views));
  }

  /** The location {@code name} of a located target, joining it when it has no row yet. */
  LocationRun location(String name) {
    return locations.computeIfAbsent(name, n -> LocationRun.unseen(n, locked.staleAfter()));
  }

  /** Every location of a located target, by name. */
  List<LocationRun> locations() {
    return List.copyOf(locations.values());
  }

  StateLock.Row locked() {
    return locked;
  }

  /** The last accepted result, or null when none was. */
  ProbeResult result() {
    return result;
  }

  AlertStateMachine.State state() {
    return state;
  }

  Instant startedAt() {
    return startedAt;
  }

  String lastError() {
    return lastError;
  }

  /** The number of the last accepted result (only called once one was). */
  long order() {
    return lastSeq;
  }

  Instant pushedStartedAt() {
    return pushedStartedAt;
  }

  /** Whether the status changed between two accepted results of this plan. */
  boolean statusChanged() {
    return statusChanged;
  }
}
