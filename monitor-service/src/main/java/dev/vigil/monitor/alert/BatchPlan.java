package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;
import dev.vigil.monitor.quiet.Quiet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a batch of results does, computed in Java from the locked rows: the results of each service
 * run through the stale check and the {@link AlertStateMachine} one after the other, exactly as if
 * each were recorded in a transaction of its own, and the writes they make are gathered into one
 * row per service (state, health), one row per result (history), one row per incident and one per
 * event. {@link BatchRecording} runs it; {@link BatchSql} writes it.
 */
final class BatchPlan {
  private static final Logger LOG = LoggerFactory.getLogger(BatchPlan.class);

  private final BatchSql.Held held;
  private final Map<String, Last> services = new LinkedHashMap<>();
  private final Map<UUID, Opened> opened = new LinkedHashMap<>();
  private final Map<UUID, Touched> touched = new LinkedHashMap<>();
  private final List<Accepted> accepted = new ArrayList<>();
  private final List<Recorder.Recorded> recorded = new ArrayList<>();
  private final List<AlertEvent> events = new ArrayList<>();
  private int nextOrder;

  BatchPlan(BatchSql.Held held) {
    this.held = held;
  }

  /** A service's running state within the batch; after the batch, what its rows become. */
  static final class Last {
    private final RecorderSql.Locked locked;
    private AlertStateMachine.State state;
    private Long lastSeq;
    private Instant pushedStartedAt;
    private String lastError;
    private ProbeResult result;
    private Instant startedAt;
    private long order;
    private boolean statusChanged;

    Last(RecorderSql.Locked locked) {
      this.locked = locked;
      this.state = locked.state();
      this.lastSeq = locked.lastResultSeq();
      this.pushedStartedAt = locked.lastPushedStartedAt();
      this.lastError = locked.lastError();
    }

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

    long order() {
      return order;
    }

    Instant pushedStartedAt() {
      return pushedStartedAt;
    }

    /** Whether the status changed between two accepted results of this batch. */
    boolean statusChanged() {
      return statusChanged;
    }
  }

  /** An incident opened by a result of this batch (and maybe closed by a later one). */
  static final class Opened {
    private final UUID id;
    private final String service;
    private final String firstError;
    private String lastError;
    private int probes;
    private boolean announced = true;
    private boolean closed;

    Opened(UUID id, String service, String firstError, int probes) {
      this.id = id;
      this.service = service;
      this.firstError = firstError;
      this.lastError = firstError;
      this.probes = probes;
    }

    UUID id() {
      return id;
    }

    String service() {
      return service;
    }

    String firstError() {
      return firstError;
    }

    String lastError() {
      return lastError;
    }

    int probes() {
      return probes;
    }

    boolean announced() {
      return announced;
    }

    boolean closed() {
      return closed;
    }
  }

  /** An incident open before the batch: probes this batch adds, its last error, whether closed. */
  static final class Touched {
    private final UUID id;
    private int probes;
    private String lastError;
    private boolean closes;

    Touched(UUID id) {
      this.id = id;
    }

    UUID id() {
      return id;
    }

    int probes() {
      return probes;
    }

    String lastError() {
      return lastError;
    }

    boolean closes() {
      return closes;
    }
  }

  /** An accepted result: what the state machine did and the values its rows get. */
  record Accepted(
      int index,
      ProbeResult result,
      AlertStateMachine.Step step,
      UUID closedIncident,
      String lastError,
      Instant startedAt) {}

  Instant now() {
    return held.now();
  }

  /** Pass one: the stale check and the state machine for the next result of the batch. */
  void add(ProbeResult result) {
    RecorderSql.Locked locked = held.rows().get(result.service());
    if (locked == null) {
      recorded.add(
          new Recorder.Recorded(result, null, new UnknownServiceException(result.service())));
      return;
    }
    Last last = services.computeIfAbsent(result.service(), s -> new Last(locked));
    long order = result.order() != null ? result.order() : held.orders()[nextOrder++];
    String stale = Recorder.staleReason(result, last.lastSeq, last.pushedStartedAt);
    if (stale != null) {
      recorded.add(new Recorder.Recorded(result, RecordOutcome.rejected(stale, last.state), null));
      return;
    }
    Instant startedAt = result.startedAt() != null ? result.startedAt() : now();
    AlertStateMachine.Step step =
        AlertStateMachine.apply(
            last.state,
            result.status(),
            locked.failureThreshold(),
            locked.recoveryThreshold(),
            // Only a DOWN without an open incident can open one: no random id for the others.
            result.status() == ProbeStatus.DOWN && last.state.openIncident() == null
                ? UUID.randomUUID()
                : null);
    UUID before = last.state.openIncident();
    AlertStateMachine.State next = step.next();
    last.lastError = result.error() != null ? result.error() : last.lastError;
    switch (step.action()) {
      case OPEN ->
          opened.put(
              next.openIncident(),
              new Opened(next.openIncident(), result.service(), result.error(), next.failures()));
      case CLOSE -> countProbe(before, null, true);
      case NONE -> {
        if (next.openIncident() != null) {
          countProbe(next.openIncident(), result.error(), false);
        }
      }
    }
    if (last.result != null && last.result.status() != result.status()) {
      last.statusChanged = true;
    }
    last.state = next;
    last.lastSeq = order;
    if (result.source() == ResultSource.PUSH && result.startedAt() != null) {
      last.pushedStartedAt = result.startedAt();
    }
    last.result = result;
    last.startedAt = startedAt;
    last.order = order;
    accepted.add(new Accepted(recorded.size(), result, step, before, last.lastError, startedAt));
    recorded.add(null); // filled in by events()
  }

  private void countProbe(UUID incident, String error, boolean closes) {
    Opened mine = opened.get(incident);
    if (mine != null) {
      mine.probes++;
      mine.lastError = error != null ? error : mine.lastError;
      mine.closed |= closes;
      return;
    }
    Touched t = touched.computeIfAbsent(incident, Touched::new);
    t.probes++;
    t.lastError = error != null ? error : t.lastError;
    t.closes |= closes;
  }

  /** Services with a result that opens an incident (their quiet periods decide its FAILED). */
  List<String> opening() {
    return opened.values().stream().map(Opened::service).distinct().toList();
  }

  /** Incidents open before the batch that it counts probes on or closes. */
  List<Touched> touched() {
    return List.copyOf(touched.values());
  }

  /**
   * Pass two, once quiet periods are known and the incidents open before the batch were updated:
   * the FAILED and RECOVERED events, and every result's outcome.
   */
  void events(Map<String, Optional<Quiet>> quiet, Map<UUID, BatchSql.Updated> updated) {
    for (Opened o : opened.values()) {
      Optional<Quiet> q = quiet.getOrDefault(o.service, Optional.empty());
      o.announced = q.isEmpty();
      if (q.isPresent()) {
        // The Announcer writes its FAILED if it is still open when the quiet period ends.
        LOG.info(
            "incident opened while quiet, FAILED deferred service={} incident_id={}"
                + " quiet={} until={}",
            o.service,
            o.id,
            q.get().reason(),
            q.get().until());
      }
    }
    for (Accepted a : accepted) {
      AlertStateMachine.State next = a.step().next();
      AlertEvent event =
          switch (a.step().action()) {
            case OPEN ->
                opened.get(next.openIncident()).announced
                    ? AlertEvent.failed(
                        UUID.randomUUID(),
                        next.openIncident(),
                        a.result().service(),
                        now(),
                        next.failures(),
                        a.result().error())
                    : null;
            case CLOSE -> recovered(a, updated);
            case NONE -> null;
          };
      if (event != null) {
        events.add(event);
      }
      recorded.set(a.index(), new Recorder.Recorded(a.result(), accepted(next, event), null));
    }
  }

  private AlertEvent recovered(Accepted a, Map<UUID, BatchSql.Updated> updated) {
    UUID incident = a.closedIncident();
    Opened mine = opened.get(incident);
    Instant openedAt = mine != null ? now() : updated.get(incident).openedAt();
    boolean announced = mine != null ? mine.announced : updated.get(incident).announced();
    // A RECOVERED only answers a FAILED that was written.
    return !announced
        ? null
        : AlertEvent.recovered(
            UUID.randomUUID(),
            incident,
            a.result().service(),
            now(),
            a.step().next().failuresBeforeSuccesses(),
            a.lastError(),
            openedAt);
  }

  private static RecordOutcome accepted(AlertStateMachine.State next, AlertEvent event) {
    return RecordOutcome.accepted(next, event);
  }

  List<Opened> opened() {
    return List.copyOf(opened.values());
  }

  List<Last> lastPerService() {
    return services.values().stream().filter(l -> l.result != null).toList();
  }

  List<Accepted> accepted() {
    return accepted;
  }

  List<AlertEvent> events() {
    return events;
  }

  /** One entry per result, in the order they were added. */
  List<Recorder.Recorded> recorded() {
    return recorded;
  }
}
