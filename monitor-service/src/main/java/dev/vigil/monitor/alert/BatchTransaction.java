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
 * fixed lock order), at most {@code maxBatch} per transaction, each under its own savepoint, and a
 * failed transaction retried as single ones. Metrics and the after-commit log stay the recorder's.
 */
final class BatchTransaction {
  private static final Logger LOG = LoggerFactory.getLogger(BatchTransaction.class);
  private static final Comparator<Recorder.Pending> LOCK_ORDER =
      Comparator.comparing(p -> p.result().service());

  private final Recorder recorder;
  private final DataSource dataSource;
  private final int maxBatch;
  private final DistributionSummary batchSize;
  private final Counter fallbacks;

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
            // Throws if the connection itself is gone: then the whole transaction fails below.
            connection.rollback(savepoint);
            out[i] = failed(p.result(), e);
            LOG.warn(
                "result not recorded, rest of batch goes on service={} error={}",
                p.result().service(),
                e.toString());
          }
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
