package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;
import dev.vigil.kit.db.Database;
import dev.vigil.kit.db.DatabaseException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
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
 * and instances, so every committed result sees the state left by the previous one. A result whose
 * probe did not start after the last recorded one is stale and rejected without writing anything.
 * Retrying a failed recording is safe: nothing of it was committed.
 */
public final class Recorder {
  private static final Logger LOG = LoggerFactory.getLogger(Recorder.class);

  private final DataSource dataSource;
  private final Clock clock;
  private final RecorderSql sql = new RecorderSql();
  private final Timer transactionTimer;
  private final Counter failedRows;
  private final Counter recoveredRows;
  private final Counter staleResults;

  public Recorder(DataSource dataSource, Clock clock, MeterRegistry registry) {
    this.dataSource = dataSource;
    this.clock = clock;
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
    transactionTimer.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
    afterCommit(result, outcome);
    return outcome;
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
    RecorderSql.Locked locked = sql.lockState(connection, result.service());
    if (locked == null) {
      throw new UnknownServiceException(result.service());
    }
    if (locked.lastStartedAt() != null && !result.startedAt().isAfter(locked.lastStartedAt())) {
      return RecordOutcome.rejected(
          "stale: probe started at "
              + result.startedAt()
              + ", not after the last recorded one at "
              + locked.lastStartedAt(),
          locked.state());
    }
    Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
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
            sql.openIncident(connection, next.openIncident(), result, now, next.failures());
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
            Instant openedAt = sql.closeIncident(connection, incident, now);
            yield AlertEvent.recovered(
                UUID.randomUUID(),
                incident,
                result.service(),
                now,
                next.failuresBeforeSuccesses(),
                lastError,
                openedAt);
          }
          case NONE -> {
            if (next.openIncident() != null) {
              sql.countIncidentProbe(connection, next.openIncident(), result.error());
            }
            yield null;
          }
        };
    sql.writeResult(connection, result, next, lastError, now);
    if (event != null) {
      sql.insertOutbox(connection, event);
    }
    return RecordOutcome.accepted(next, event);
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
