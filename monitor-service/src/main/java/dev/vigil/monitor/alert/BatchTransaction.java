package dev.vigil.monitor.alert;

import dev.vigil.kit.db.DatabaseException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records many results in one transaction for {@link Recorder#recordAll}: sorted by service (the
 * fixed lock order), at most {@code maxBatch} per transaction, all of them with the recorder's
 * set-based statements (a handful of round trips per transaction, not per result); if one result or
 * its own work fails them, the transaction is rolled back and redone with a savepoint per result,
 * so only that one fails. A failed transaction is retried as single ones. Metrics and the
 * after-commit log stay the recorder's.
 */
final class BatchTransaction {
  private static final Logger LOG = LoggerFactory.getLogger(BatchTransaction.class);
  private static final Comparator<Recorder.Pending> LOCK_ORDER =
      Comparator.comparing(p -> p.result().service());

  private static final int VALID_SECONDS = 5;

  private final Recorder recorder;
  private final DataSource dataSource;
  private final int maxBatch;
  private final DistributionSummary batchSize;
  private final Counter fallbacks;
  private final Counter oneByOne;

  BatchTransaction(Recorder recorder, DataSource dataSource, int maxBatch, MeterRegistry registry) {
    this.recorder = recorder;
    this.dataSource = dataSource;
    this.maxBatch = maxBatch;
    this.batchSize =
        DistributionSummary.builder("vigil.monitor.recorder.batch.size")
            .description("Results recorded in one batch transaction")
            .register(registry);
    this.fallbacks =
        Counter.builder("vigil.monitor.recorder.batch.fallbacks")
            .description("Batch transactions that failed and were retried as single ones")
            .register(registry);
    this.oneByOne =
        Counter.builder("vigil.monitor.recorder.batch.savepoint.redos")
            .description(
                "Batches redone with a savepoint per result because one result failed the"
                    + " set-based statements")
            .register(registry);
  }

  List<Recorder.Recorded> recordAll(List<Recorder.Pending> pending) {
    Recorder.Recorded[] out = new Recorder.Recorded[pending.size()];
    Integer[] order = new Integer[pending.size()];
    Arrays.setAll(order, i -> i);
    // Stable: one service's results keep the order they were given in.
    Arrays.sort(order, Comparator.comparing(i -> pending.get(i), LOCK_ORDER));
    for (int from = 0; from < order.length; from += maxBatch) {
      List<Integer> chunk =
          Arrays.asList(order).subList(from, Math.min(order.length, from + maxBatch));
      recordChunk(pending, chunk, out);
    }
    return List.of(out);
  }

  /** Where a whole-transaction failure happened: before the commit, or in it (outcome unknown). */
  private enum Stage {
    WORK,
    COMMIT
  }

  private void recordChunk(
      List<Recorder.Pending> pending, List<Integer> chunk, Recorder.Recorded[] out) {
    long start = System.nanoTime();
    List<Integer> inTransaction = new ArrayList<>(chunk.size());
    Stage stage = Stage.WORK;
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try {
        try {
          together(connection, pending, chunk, out, inTransaction);
        } catch (SQLException | RuntimeException e) {
          rollbackQuietly(connection, e);
          if (!connection.isValid(VALID_SECONDS)) {
            throw e; // the transaction is lost, not one result's work: retried alone below
          }
          // One result (or its own work) failed the set-based statements: redo the chunk with a
          // savepoint per result, so only that one is rolled back.
          oneByOne.increment();
          LOG.info(
              "batch redone with a savepoint per result results={} error={}",
              chunk.size(),
              e.toString());
          chunk.forEach(i -> out[i] = null);
          inTransaction.clear();
          oneByOne(connection, pending, chunk, out, inTransaction);
        }
        stage = Stage.COMMIT;
        connection.commit();
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(connection, e);
        throw e;
      } finally {
        connection.setAutoCommit(true);
      }
    } catch (SQLException | RuntimeException e) {
      retryAlone(pending, chunk, out, stage, e);
      return;
    }
    long nanos = System.nanoTime() - start;
    batchSize.record(chunk.size());
    for (int i = 0; i < inTransaction.size(); i++) {
      recorder.timeTransaction(nanos);
    }
  }

  /**
   * The common case: every result of the chunk with the recorder's set-based statements, then each
   * one's own work, without savepoints. Throws if anything fails.
   */
  private void together(
      Connection connection,
      List<Recorder.Pending> pending,
      List<Integer> chunk,
      Recorder.Recorded[] out,
      List<Integer> inTransaction)
      throws SQLException {
    List<ProbeResult> results = new ArrayList<>(chunk.size());
    for (int i : chunk) {
      results.add(pending.get(i).result());
    }
    List<Recorder.Recorded> recorded = recorder.recordTogether(connection, results);
    for (int k = 0; k < chunk.size(); k++) {
      int i = chunk.get(k);
      Recorder.Recorded r = recorded.get(k);
      if (r.committed()) {
        pending.get(i).also().run(connection, r.outcome());
        inTransaction.add(i);
      } else {
        notRecorded(r.result(), r.failure());
      }
      out[i] = r;
    }
  }

  /** Each result and its own work under a savepoint of its own: a failure undoes only that one. */
  private void oneByOne(
      Connection connection,
      List<Recorder.Pending> pending,
      List<Integer> chunk,
      Recorder.Recorded[] out,
      List<Integer> inTransaction)
      throws SQLException {
    for (int i : chunk) {
      Recorder.Pending p = pending.get(i);
      Savepoint savepoint = connection.setSavepoint();
      try {
        RecordOutcome outcome = recorder.record(connection, p.result());
        p.also().run(connection, outcome);
        connection.releaseSavepoint(savepoint);
        out[i] = new Recorder.Recorded(p.result(), outcome, null);
        inTransaction.add(i);
      } catch (SQLException | RuntimeException e) {
        // Throws if the connection itself is gone: then the whole transaction fails.
        connection.rollback(savepoint);
        out[i] = failed(p.result(), e);
        notRecorded(p.result(), e);
      }
    }
  }

  /**
   * The transaction failed as a whole, so nothing of it was written (or, failing in the commit,
   * perhaps all of it): each result not already failed on its own is recorded alone.
   */
  private void retryAlone(
      List<Recorder.Pending> pending,
      List<Integer> chunk,
      Recorder.Recorded[] out,
      Stage stage,
      Exception cause) {
    fallbacks.increment();
    LOG.warn(
        "batch transaction failed, recording its results one by one results={} stage={} error={}",
        chunk.size(),
        stage,
        cause.toString());
    for (int i : chunk) {
      Recorder.Recorded before = out[i];
      if (before != null && !before.committed()) {
        continue; // failed on its own and was rolled back to its savepoint
      }
      Recorder.Pending p = pending.get(i);
      if (stage == Stage.COMMIT && p.result().order() == null) {
        // Without a claim number a second recording would not be recognised as stale.
        out[i] = failed(p.result(), cause);
        continue;
      }
      try {
        out[i] =
            new Recorder.Recorded(
                p.result(), recorder.recordInOwnTransaction(p.result(), p.also()), null);
      } catch (RuntimeException e) {
        out[i] = new Recorder.Recorded(p.result(), null, e);
      }
    }
  }

  private static void notRecorded(ProbeResult result, Exception e) {
    LOG.warn(
        "result not recorded, rest of batch goes on service={} error={}",
        result.service(),
        e.toString());
  }

  private static Recorder.Recorded failed(ProbeResult result, Exception e) {
    RuntimeException failure =
        e instanceof RuntimeException runtime
            ? runtime
            : new DatabaseException("recording result of " + result.service(), (SQLException) e);
    return new Recorder.Recorded(result, null, failure);
  }

  private static void rollbackQuietly(Connection connection, Exception cause) {
    try {
      connection.rollback();
    } catch (SQLException rollbackFailure) {
      cause.addSuppressed(rollbackFailure);
    }
  }
}
