package dev.vigil.monitor.alert;

import dev.vigil.kit.db.DatabaseException;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

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
 *
 * <p>One path for one result and for many: the {@link RecordingTransactions} own every transaction
 * (savepoints, retries, metrics); the {@link Recording} locks the rows, the {@link RecordingPlan}
 * decides (stale check, {@link AlertStateMachine}, incidents, quiet deferral, events) and the
 * {@link PlanWriter} writes: set-based statements for many results, scalar ones for a single result
 * (cheaper for one row), the same rows either way.
 */
public final class Recorder {
  /** Most results recorded in one transaction unless configured otherwise. */
  public static final int DEFAULT_MAX_BATCH = 200;

  private final RecordingTransactions transactions;

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
    this.transactions =
        new RecordingTransactions(dataSource, maxBatch, new RecorderMetrics(registry));
  }

  /** Work that must commit or roll back together with a recording (e.g. releasing a lease). */
  @FunctionalInterface
  public interface AlsoInTransaction {
    void run(Connection connection, RecordOutcome outcome) throws SQLException;
  }

  /** One result of a batch and the work that must commit or roll back with it. */
  public record Pending(ProbeResult result, AlsoInTransaction also) {
    public Pending {
      Objects.requireNonNull(result, "result");
      Objects.requireNonNull(also, "also");
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
    return transactions.record(new Pending(result, also));
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
    return transactions.recordAll(pending);
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
    return transactions.record(connection, result);
  }
}
