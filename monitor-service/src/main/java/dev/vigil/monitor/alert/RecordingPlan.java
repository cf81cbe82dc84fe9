package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;
import dev.vigil.monitor.quiet.Quiet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that decides what results do, for one result or many, computed in Java from the
 * locked rows: each service's results run through the stale check and the {@link AlertStateMachine}
 * one after the other, exactly as if each were recorded in a transaction of its own; incidents are
 * opened, counted and closed; a FAILED is deferred while the service is quiet, and a RECOVERED only
 * answers a FAILED that was written. The writes are gathered into one row per service (state,
 * health), one per result (history), one per incident and one per event for the {@link PlanWriter}.
 *
 * <p>A target probed from several locations takes the same path: its result first runs through its
 * location's own counters (stale check per location, since claim numbers of different locations
 * interleave), then the {@link QuorumRule} decides the service's incident over the fresh locations
 * ({@link ServiceRun#stepLocated}); what follows (incidents, quiet deferral, events, writes) is the
 * same, and the events carry the per-location verdicts.
 *
 * <p>Two passes, because two facts come from the database after the first: {@link #add} each
 * result; then, given the quiet periods of the services whose incident opens and what the incidents
 * open before looked like when updated, {@link #decide} the events and every result's outcome.
 */
final class RecordingPlan {
  // Logged under the recorder's name, like every line of the recording path.
  private static final Logger LOG = LoggerFactory.getLogger(Recorder.class);

  private final StateLock.Held held;
  private final Map<String, ServiceRun> services = new LinkedHashMap<>();
  private final Map<UUID, IncidentChange> incidents = new LinkedHashMap<>();
  private final List<Accepted> accepted = new ArrayList<>();
  private final List<Recorder.Recorded> recorded = new ArrayList<>();
  private final List<AlertEvent> events = new ArrayList<>();
  private final List<String> eventTraces = new ArrayList<>();
  private Map<String, Optional<Quiet>> quiet = Map.of();
  private int nextOrder;

  RecordingPlan(StateLock.Held held) {
    this.held = held;
  }

  /**
   * An accepted result: what the state machine did, the incident it closed (or null), the service's
   * last error after it and the start time its rows get.
   */
  record Accepted(
      int index,
      ProbeResult result,
      AlertStateMachine.Step step,
      UUID closedIncident,
      String lastError,
      Instant startedAt,
      Map<String, String> verdicts) {}

  /** The database's time under the locks: every time this plan writes. */
  Instant now() {
    return held.now();
  }

  /** Pass one: the stale check and the state machine for the next result. */
  void add(ProbeResult result) {
    StateLock.Row locked = held.rows().get(result.service());
    if (locked == null) {
      recorded.add(
          new Recorder.Recorded(result, null, new UnknownServiceException(result.service())));
      return;
    }
    ServiceRun run =
        services.computeIfAbsent(
            result.service(),
            s -> new ServiceRun(locked, held.locations().getOrDefault(s, new TreeMap<>())));
    long order = result.order() != null ? result.order() : held.orders()[nextOrder++];
    if (locked.located() != (result.location() != null)) {
      // The definition changed between the claim and the recording (locations added or removed):
      // the result belongs to the old one. The API refuses such pushes before they get here.
      String why =
          locked.located()
              ? "rejected: the target is probed from several locations and the result names none"
              : "rejected: the target is probed from one place and the result names a location";
      recorded.add(new Recorder.Recorded(result, RecordOutcome.rejected(why, run.state()), null));
      return;
    }
    LocationRun location = locked.located() ? run.location(result.location()) : null;
    String stale = location != null ? location.staleReason(result) : run.staleReason(result);
    if (stale != null) {
      recorded.add(new Recorder.Recorded(result, RecordOutcome.rejected(stale, run.state()), null));
      return;
    }
    UUID before = run.state().openIncident();
    // Only a result that may open an incident gets a random id: no random id for the others.
    UUID newIncident =
        result.status() == ProbeStatus.DOWN && before == null ? UUID.randomUUID() : null;
    Map<String, String> verdicts = null;
    AlertStateMachine.Step step;
    if (location == null) {
      step =
          AlertStateMachine.apply(
              run.state(),
              result.status(),
              locked.failureThreshold(),
              locked.recoveryThreshold(),
              newIncident);
    } else {
      ServiceRun.Located located = run.stepLocated(location, result, order, now(), newIncident);
      step = located.step();
      verdicts = located.verdicts();
    }
    AlertStateMachine.State next = step.next();
    switch (step.action()) {
      case OPEN ->
          incidents.put(
              next.openIncident(),
              IncidentChange.opening(
                  next.openIncident(), result.service(), result.error(), next.failures()));
      case CLOSE -> change(before).count(null, true);
      case NONE -> {
        if (next.openIncident() != null) {
          change(next.openIncident()).count(result.error(), false);
        }
      }
    }
    Instant startedAt = result.startedAt() != null ? result.startedAt() : now();
    run.accept(result, next, order, startedAt);
    accepted.add(
        new Accepted(recorded.size(), result, step, before, run.lastError(), startedAt, verdicts));
    recorded.add(null); // filled in by decide()
  }

  private IncidentChange change(UUID incident) {
    return incidents.computeIfAbsent(incident, IncidentChange::openBefore);
  }

  /** Services with a result that opens an incident (their quiet periods decide its FAILED). */
  List<String> opening() {
    return incidents.values().stream()
        .filter(IncidentChange::opens)
        .map(IncidentChange::service)
        .distinct()
        .toList();
  }

  /** Incidents open before the plan that it counts probes on or closes. */
  List<IncidentChange> openBefore() {
    return incidents.values().stream().filter(c -> !c.opens()).toList();
  }

  /** Incidents the plan opens. */
  List<IncidentChange> opened() {
    return incidents.values().stream().filter(IncidentChange::opens).toList();
  }

  /** Services with a result that opens or closes an incident (their events may carry impact). */
  List<String> transitioning() {
    return accepted.stream()
        .filter(a -> a.step().action() != AlertStateMachine.Action.NONE)
        .map(a -> a.result().service())
        .distinct()
        .toList();
  }

  /** Services whose incident this plan closes (their children's held-back FAILEDs are released). */
  List<String> closing() {
    return accepted.stream()
        .filter(a -> a.step().action() == AlertStateMachine.Action.CLOSE)
        .map(a -> a.result().service())
        .distinct()
        .toList();
  }

  /**
   * Pass two, once the quiet periods and parents of {@link #opening} services are known and the
   * {@link #openBefore} incidents were updated: the FAILED and RECOVERED events, and every outcome.
   * A FAILED is written only when neither a quiet period nor a down parent holds it back; a parent
   * is down when its FAILED was written before (in {@code parents}) or by this plan, so a gateway
   * and its children failing in one batch write the gateway's FAILED only.
   */
  void decide(
      Map<String, Optional<Quiet>> quiet,
      Map<String, Dependencies.Parents> parents,
      Map<String, AlertEvent.Impact> impact) {
    this.quiet = quiet;
    Map<String, IncidentChange> openedBy = new LinkedHashMap<>();
    for (IncidentChange o : opened()) {
      openedBy.put(o.service(), o);
    }
    java.util.Set<String> decided = new java.util.HashSet<>();
    for (IncidentChange o : opened()) {
      decideOpened(o, quiet, parents, openedBy, decided, 0);
    }
    for (Accepted a : accepted) {
      AlertStateMachine.State next = a.step().next();
      AlertEvent event =
          switch (a.step().action()) {
            case OPEN ->
                incidents.get(next.openIncident()).announced()
                    ? AlertEvent.failed(
                        UUID.randomUUID(),
                        next.openIncident(),
                        a.result().service(),
                        now(),
                        next.failures(),
                        a.result().error())
                    : null;
            case CLOSE -> recovered(a);
            case NONE -> null;
          };
      if (event != null && a.verdicts() != null && !a.verdicts().isEmpty()) {
        event = event.withLocations(a.verdicts());
      }
      if (event != null && impact.containsKey(event.service())) {
        event = event.withImpact(impact.get(event.service()));
      }
      if (event != null) {
        events.add(event);
        eventTraces.add(a.result().trace() == null ? null : a.result().trace().toString());
      }
      recorded.set(
          a.index(), new Recorder.Recorded(a.result(), RecordOutcome.accepted(next, event), null));
    }
  }

  // Parents opened by this plan first (depth-bounded: cycles are refused when targets are stored).
  private void decideOpened(
      IncidentChange o,
      Map<String, Optional<Quiet>> quiet,
      Map<String, Dependencies.Parents> parents,
      Map<String, IncidentChange> openedBy,
      java.util.Set<String> decided,
      int depth) {
    if (!decided.add(o.service())) {
      return;
    }
    Dependencies.Parents p = parents.getOrDefault(o.service(), Dependencies.Parents.NONE);
    String downParent = p.down();
    for (String parent : p.dependsOn()) {
      IncidentChange inPlan = openedBy.get(parent);
      if (inPlan == null || depth > 64) {
        continue;
      }
      decideOpened(inPlan, quiet, parents, openedBy, decided, depth + 1);
      if (downParent == null
          && (inPlan.announced() || inPlan.heldForParent())
          && !inPlan.closes()) {
        downParent = parent;
      }
    }
    Optional<Quiet> q = quiet.getOrDefault(o.service(), Optional.empty());
    Optional<Dependencies.Held> unconfirmed =
        downParent == null ? p.unconfirmed(now(), this::plannedStatus) : Optional.empty();
    if (unconfirmed.isPresent()
        && (q.isEmpty() || unconfirmed.get().until().isAfter(q.get().until()))) {
      // The Announcer looks again then: the parent down by then holds it until it recovers.
      o.held(unconfirmed.get().reason(), unconfirmed.get().until());
      LOG.info(
          "incident opened while a parent is failing, FAILED deferred service={} incident_id={}"
              + " held=\"{}\" until={}",
          o.service(),
          o.id(),
          unconfirmed.get().reason(),
          unconfirmed.get().until());
    } else if (downParent != null) {
      // Due when the parent recovers (its RECOVERED releases it), whatever the quiet period says.
      o.held("parent " + downParent + " is down", Instant.MAX);
      LOG.info(
          "incident opened while a parent is down, FAILED deferred service={} incident_id={}"
              + " parent={}",
          o.service(),
          o.id(),
          downParent);
    } else if (q.isPresent()) {
      // The Announcer writes its FAILED if it is still open when the quiet period ends.
      o.held(q.get().reason(), q.get().until());
      LOG.info(
          "incident opened while quiet, FAILED deferred service={} incident_id={}"
              + " quiet={} until={}",
          o.service(),
          o.id(),
          q.get().reason(),
          q.get().until());
    }
  }

  private AlertEvent recovered(Accepted a) {
    IncidentChange closed = incidents.get(a.closedIncident());
    // A RECOVERED only answers a FAILED that was written.
    if (!closed.announced()) {
      return null;
    }
    return AlertEvent.recovered(
        UUID.randomUUID(),
        closed.id(),
        a.result().service(),
        now(),
        a.step().next().failuresBeforeSuccesses(),
        a.lastError(),
        closed.opens() ? now() : closed.openedAt());
  }

  /**
   * The health status this plan writes for {@code service}, or null when it has no result of it.
   */
  private ProbeStatus plannedStatus(String service) {
    ServiceRun run = services.get(service);
    return run == null || run.result() == null ? null : run.status();
  }

  /** Services with an accepted result: their state, deadline and health rows. */
  List<ServiceRun> lastPerService() {
    return services.values().stream().filter(r -> r.result() != null).toList();
  }

  /**
   * The health status this plan writes for each service with parents and an accepted result: a
   * parent's impact counts the children down with it after the plan, including those it fails.
   */
  Map<String, ProbeStatus> childStatuses() {
    Map<String, ProbeStatus> statuses = new java.util.HashMap<>();
    services.forEach(
        (service, run) -> {
          if (run.result() != null && held.rows().get(service).hasParents()) {
            statuses.put(service, run.status());
          }
        });
    return statuses;
  }

  /** A location of {@code service} that results of this plan moved. */
  record Moved(String service, LocationRun location) {}

  /** The locations results of this plan moved: their location_state rows. */
  List<Moved> movedLocations() {
    List<Moved> moved = new ArrayList<>();
    services.forEach(
        (service, run) ->
            run.locations().stream()
                .filter(LocationRun::changed)
                .forEach(l -> moved.add(new Moved(service, l))));
    return moved;
  }

  /**
   * Whether {@code service} was in a maintenance window or silenced at the recording's time (its
   * history rows count apart from uptime); known once {@link #decide} ran.
   */
  boolean inMaintenance(String service) {
    return quiet.getOrDefault(service, Optional.empty()).isPresent();
  }

  /** Accepted results in the order given: their history rows. */
  List<Accepted> accepted() {
    return accepted;
  }

  /** The events, in the order of the results that wrote them. */
  List<AlertEvent> events() {
    return events;
  }

  /** The traceparent of each of {@link #events} (null where its result was not traced). */
  List<String> eventTraces() {
    return eventTraces;
  }

  /** One entry per result, in the order they were added. */
  List<Recorder.Recorded> recorded() {
    return recorded;
  }
}
