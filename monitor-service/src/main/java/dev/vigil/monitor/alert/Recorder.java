package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;
import dev.vigil.kit.db.Database;
import dev.vigil.kit.db.DatabaseException;
import dev.vigil.monitor.quiet.Quiet;
import dev.vigil.monitor.quiet.QuietRules;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single entry point that records a result: scheduled probes and pushed results both come here.
 *
 * <p>Guarantees: one result is recorded in one transaction that locks the service's {@code
 * alert_state} row ({@code FOR UPDATE}), updates the counters, opens or closes the incident,
 * upserts {@code health_status}, appends {@code check_history} and inserts at most one outbox row;
 * any failure rolls all of it back. The row lock serialises recorders of one service across threads
 * and instances, so every committed result sees the state left by the previous one.
 *
 * <p>One clock for ordering: a result's place is its {@code result_order} number (taken when its
 * probe was claimed, or under the row lock when it has none), and every time written (recorded at,
 * incident opened/closed, the event's occurredAt and the outbox row's created_at) is the database's
 * {@code clock_timestamp()} read under the row lock (in a batch: read once, when all its rows are
 * held, so the results of one batch share it). No host clock orders anything, so instances whose
 * clocks differ record each other's results. A result whose number is not above the last recorded
 * one is stale and rejected without writing anything. Retrying a failed recording is safe: nothing
 * of it was committed.
 *
 * <p>Quiet periods: a result that opens an incident while the service is in a maintenance window or
 * silenced (decided at that same database time) opens it unannounced and writes no FAILED; the
 * {@link Announcer} writes it if the incident is still open when the quiet period ends. A result
 * that closes an unannounced incident writes no RECOVERED.
 */
public final class Recorder {
  private static final Logger LOG = LoggerFactory.getLogger(Recorder.class);

  /** Most results recorded in one transaction unless configured otherwise. */
  public static final int DEFAULT_MAX_BATCH = 200;

  private final DataSource dataSource;
  private final RecorderSql sql = new RecorderSql();
  private final QuietRules quietRules = new QuietRules();
  private final BatchRecording recording = new BatchRecording();
  private final BatchTransaction batches;
  private final Timer transactionTimer;
  private final Counter failedRows;
  private final Counter recoveredRows;
  private final Counter staleResults;

  public Recorder(DataSource dataSource, MeterRegistry registry) {
    this(dataSource, registry, DEFAULT_MAX_BATCH);
  }

  /**
   * @param maxBatch most results {@link #recordAll} records in one transaction (row locks held
   *     until its commit)
   */
  public Recorder(DataSource dataSource, MeterRegistry registry, int maxBatch) {
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be at least 1, was " + maxBatch);
    }
    this.dataSource = dataSource;
    this.batches = new BatchTransaction(this, dataSource, maxBatch, registry);
    this.transactionTimer =
        Timer.builder("vigil.monitor.recorder.transaction")
            .description("Time to record one result, commit included")
            .register(registry);
    this.failedRows = outboxCounter(registry, "FAILED");
    this.recoveredRows = outboxCounter(registry, "RECOVERED");
    this.staleResults =
        Counter.builder("vigil.monitor.results.stale")
            .description("Results rejected because a newer one was already recorded")
            .register(registry);
  }

  private static Counter outboxCounter(MeterRegistry registry, String type) {
    return Counter.builder("vigil.monitor.outbox.rows.written")
        .description("Outbox rows committed")
        .tag("type", type)
        .register(registry);
  }

  /** Work that must commit or roll back together with a recording (e.g. releasing a lease). */
  @FunctionalInterface
  public interface AlsoInTransaction {
    void run(Connection connection, RecordOutcome outcome) throws SQLException;
  }

  /**
   * Records {@code result} in its own transaction and commits it.
   *
   * @throws UnknownServiceException if the service is not a target (nothing written)
   * @throws DatabaseException if the database failed (nothing written)
   */
  public RecordOutcome record(ProbeResult result) {
    return record(result, (connection, outcome) -> {});
  }

  /** Records {@code result} and runs {@code also} in the same transaction, then commits both. */
  public RecordOutcome record(ProbeResult result, AlsoInTransaction also) {
    RecordOutcome outcome = recordInOwnTransaction(result, also);
    afterCommit(result, outcome);
    return outcome;
  }

  /** {@link #record(ProbeResult, AlsoInTransaction)} without the after-commit metrics and log. */
  RecordOutcome recordInOwnTransaction(ProbeResult result, AlsoInTransaction also) {
    long start = System.nanoTime();
    RecordOutcome outcome =
        Database.inTransaction(
            dataSource,
            "recording result of " + result.service(),
            connection -> {
              RecordOutcome recorded = record(connection, result);
              also.run(connection, recorded);
              return recorded;
            });
    timeTransaction(System.nanoTime() - start);
    return outcome;
  }

  /** One result of a batch and the work that must commit or roll back with it. */
  public record Pending(ProbeResult result, AlsoInTransaction also) {
    public Pending {
      java.util.Objects.requireNonNull(result, "result");
      java.util.Objects.requireNonNull(also, "also");
    }
  }

  /**
   * What became of one result of a batch: its outcome once committed, or the failure that kept it
   * from being recorded (nothing of it was committed).
   */
  public record Recorded(ProbeResult result, RecordOutcome outcome, RuntimeException failure) {
    public boolean committed() {
      return failure == null;
    }
  }

  /**
   * Records {@code pending} in as few transactions as the batch limit allows and returns one entry
   * per result, in the order given.
   *
   * <p>Guarantees (besides those of {@link #record(Connection, ProbeResult)} for each result):
   * results are recorded in order of service name (a stable sort, so one service's results keep
   * their given order), which is the fixed lock order that keeps two instances recording
   * overlapping batches from deadlocking; the batch is recorded with a fixed number of set-based
   * statements, then each {@code also} runs; an unknown service is reported as that result's
   * failure, and if anything else fails (a constraint, bad data, an {@code also}) the transaction
   * is redone with each result under its own savepoint, so that one is rolled back alone with its
   * {@code also} and reported as its failure while the others commit. If the transaction itself
   * fails (connection lost, commit refused), nothing of it was written and every result is retried
   * once in a transaction of its own; a result without a claim number whose commit outcome is
   * unknown is not retried (it might be recorded twice) and is reported failed instead. A result
   * that still fails leaves its {@code also} undone: a scheduled probe's lease then expires and it
   * is probed again.
   */
  public List<Recorded> recordAll(List<Pending> pending) {
    List<Recorded> recorded = batches.recordAll(pending);
    for (Recorded r : recorded) {
      if (r.committed()) {
        afterCommit(r.result(), r.outcome());
      }
    }
    return recorded;
  }

  /** Records the time one result waited for its transaction's commit. */
  void timeTransaction(long nanos) {
    transactionTimer.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
  }

  /**
   * Records {@code result} on {@code connection}, joining the caller's transaction: nothing is
   * committed here, and a rollback by the caller undoes every write. The connection must not be in
   * auto-commit mode, or the row lock would not hold across the steps.
   *
   * @throws SQLException if a statement failed; the caller must roll back
   * @throws UnknownServiceException if the service is not a target
   */
  public RecordOutcome record(Connection connection, ProbeResult result) throws SQLException {
    if (connection.getAutoCommit()) {
      throw new IllegalStateException("recording needs a transaction (auto-commit is on)");
    }
    RecorderSql.Locked locked = sql.lockState(connection, result.service(), result.order() == null);
    if (locked == null) {
      throw new UnknownServiceException(result.service());
    }
    String stale = staleReason(result, locked.lastResultSeq(), locked.lastPushedStartedAt());
    if (stale != null) {
      return RecordOutcome.rejected(stale, locked.state());
    }
    Instant now = locked.now();
    long order = result.order() != null ? result.order() : locked.newOrder();
    boolean checkerTime = result.source() == ResultSource.PUSH && result.startedAt() != null;
    RecorderSql.Written written =
        new RecorderSql.Written(
            result,
            result.startedAt() != null ? result.startedAt() : now,
            order,
            checkerTime ? result.startedAt() : locked.lastPushedStartedAt(),
            now);
    AlertStateMachine.Step step =
        AlertStateMachine.apply(
            locked.state(),
            result.status(),
            locked.failureThreshold(),
            locked.recoveryThreshold(),
            UUID.randomUUID());
    AlertStateMachine.State next = step.next();
    String lastError = result.error() != null ? result.error() : locked.lastError();
    AlertEvent event =
        switch (step.action()) {
          case OPEN -> {
            // Quiet (maintenance window or silence) at the database's time under the row lock: the
            // incident is opened but not announced; the Announcer writes its FAILED when the quiet
            // period ends and it is still open.
            Optional<Quiet> quiet = quietRules.at(connection, result.service(), now);
            sql.openIncident(
                connection, next.openIncident(), result, now, next.failures(), quiet.isEmpty());
            if (quiet.isPresent()) {
              LOG.info(
                  "incident opened while quiet, FAILED deferred service={} incident_id={}"
                      + " quiet={} until={}",
                  result.service(),
                  next.openIncident(),
                  quiet.get().reason(),
                  quiet.get().until());
              yield null;
            }
            yield AlertEvent.failed(
                UUID.randomUUID(),
                next.openIncident(),
                result.service(),
                now,
                next.failures(),
                result.error());
          }
          case CLOSE -> {
            UUID incident = locked.state().openIncident();
            RecorderSql.Closed closed = sql.closeIncident(connection, incident, now, true);
            // A RECOVERED only answers a FAILED that was written.
            yield !closed.announced()
                ? null
                : AlertEvent.recovered(
                    UUID.randomUUID(),
                    incident,
                    result.service(),
                    now,
                    next.failuresBeforeSuccesses(),
                    lastError,
                    closed.openedAt());
          }
          case NONE -> {
            if (next.openIncident() != null) {
              sql.countIncidentProbe(connection, next.openIncident(), result.error());
            }
            yield null;
          }
        };
    sql.writeResult(connection, written, next, lastError);
    if (event != null) {
      sql.insertOutbox(connection, event);
    }
    return RecordOutcome.accepted(next, event);
  }

  /**
   * Records {@code results} on {@code connection} with a fixed number of statements, joining the
   * caller's transaction like {@link #record(Connection, ProbeResult)}: one entry per result, in
   * the order given (which must keep one service's results in their order); an unknown service is
   * reported as its entry's failure and writes nothing.
   *
   * @throws SQLException if a statement failed; the caller must roll back
   */
  List<Recorded> recordTogether(Connection connection, List<ProbeResult> results)
      throws SQLException {
    if (results.size() == 1) {
      // Alone, the single-row statements cost the database less than the set-based ones.
      ProbeResult result = results.getFirst();
      try {
        return List.of(new Recorded(result, record(connection, result), null));
      } catch (UnknownServiceException e) {
        return List.of(new Recorded(result, null, e));
      }
    }
    return recording.record(connection, results);
  }

  /**
   * Why {@code result} is older than the last recorded one ({@code lastSeq}, {@code
   * lastPushedStartedAt}), or null if it is newer.
   */
  static String staleReason(ProbeResult result, Long lastSeq, Instant lastPushedStartedAt) {
    if (result.order() != null && lastSeq != null && result.order() <= lastSeq) {
      return "stale: result #"
          + result.order()
          + " was claimed before the last recorded one (#"
          + lastSeq
          + ")";
    }
    // An external checker's own startedAt values are compared with each other only (one clock).
    if (result.source() == ResultSource.PUSH
        && result.startedAt() != null
        && lastPushedStartedAt != null
        && !result.startedAt().isAfter(lastPushedStartedAt)) {
      return "stale: startedAt "
          + result.startedAt()
          + " is not after the last pushed startedAt "
          + lastPushedStartedAt;
    }
    return null;
  }

  private void afterCommit(ProbeResult result, RecordOutcome outcome) {
    if (!outcome.accepted()) {
      staleResults.increment();
      LOG.debug("result rejected service={} reason={}", result.service(), outcome.rejectedReason());
      return;
    }
    AlertEvent event = outcome.event();
    if (event == null) {
      return;
    }
    switch (event.kind()) {
      case FAILED -> failedRows.increment();
      case RECOVERED -> recoveredRows.increment();
    }
    LOG.info(
        "alert committed service={} kind={} incident_id={} event_id={} consecutive_failures={}",
        event.service(),
        event.kind(),
        event.incidentId(),
        event.eventId(),
        event.consecutiveFailures());
  }
}
