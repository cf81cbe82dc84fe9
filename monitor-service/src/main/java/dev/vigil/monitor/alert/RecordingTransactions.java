package dev.vigil.monitor.alert;

import dev.vigil.kit.db.Database;
import dev.vigil.kit.db.DatabaseException;
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
 * The one owner of the recorder's transactions: a result alone in a transaction of its own, or many
 * sorted by service (the fixed lock order), at most {@code maxBatch} per transaction, all recorded
 * together by the {@link Recording}; if one result or its own work fails them, the transaction is
 * rolled back and redone with a savepoint per result, so only that one fails; a transaction that
 * fails as a whole is retried result by result. Commits, rollbacks, savepoints, retries, metrics
 * and the after-commit log happen here and nowhere else; nothing below calls back up into it.
 */
final class RecordingTransactions {
  // Logged under the recorder's name, like every line of the recording path.
  private static final Logger LOG = LoggerFactory.getLogger(Recorder.class);
  private static final Comparator<Recorder.Pending> LOCK_ORDER =
      Comparator.comparing(p -> p.result().service());
  private static final int VALID_SECONDS = 5;

  /** How often a transaction PostgreSQL aborted for a deadlock is tried (see {@link #conflict}). */
  private static final int CONFLICT_ATTEMPTS = 3;

  private final DataSource dataSource;
  private final int maxBatch;
  private final RecorderMetrics metrics;
  private final Recording recording = new Recording();

  RecordingTransactions(DataSource dataSource, int maxBatch, RecorderMetrics metrics) {
    this.dataSource = dataSource;
    this.maxBatch = maxBatch;
    this.metrics = metrics;
  }

  /** {@code pending} in a transaction of its own; its failure is thrown (nothing committed). */
  RecordOutcome record(Recorder.Pending pending) {
    RecordOutcome outcome = alone(pending);
    metrics.committed(pending.result(), outcome);
    return outcome;
  }

  /** Records {@code result} in the caller's transaction: no commit, no metrics (the caller's). */
  RecordOutcome record(Connection connection, ProbeResult result) throws SQLException {
    return recording.record(connection, result);
  }

  /** Every result of {@code pending}, one entry each in the order given. */
  List<Recorder.Recorded> recordAll(List<Recorder.Pending> pending) {
    Recorder.Recorded[] out = new Recorder.Recorded[pending.size()];
    Integer[] order = new Integer[pending.size()];
    Arrays.setAll(order, i -> i);
    // Stable: one service's results keep the order they were given in.
    Arrays.sort(order, Comparator.comparing(i -> pending.get(i), LOCK_ORDER));
    for (int from = 0; from < order.length; from += maxBatch) {
      List<Integer> chunk =
          Arrays.asList(order).subList(from, Math.min(order.length, from + maxBatch));
      new Chunk(pending, chunk, out).record();
    }
    for (Recorder.Recorded r : out) {
      if (r.committed()) {
        metrics.committed(r.result(), r.outcome());
      }
    }
    return List.of(out);
  }

  /**
   * One result and its own work in a transaction of its own, timed; throws its failure. A deadlock
   * or serialization failure is tried again, up to {@link #CONFLICT_ATTEMPTS} times.
   */
  private RecordOutcome alone(Recorder.Pending pending) {
    for (int attempt = 1; ; attempt++) {
      try {
        return aloneOnce(pending);
      } catch (RuntimeException e) {
        if (!conflict(e) || attempt == CONFLICT_ATTEMPTS) {
          throw e;
        }
        metrics.conflictRedo();
      }
    }
  }

  /**
   * Whether {@code e} is PostgreSQL aborting a transaction for a deadlock ({@code 40P01}) or a
   * serialization failure ({@code 40001}): the timing of concurrent transactions, which the same
   * work done again normally does not meet.
   */
  static boolean conflict(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql
          && ("40P01".equals(sql.getSQLState()) || "40001".equals(sql.getSQLState()))) {
        return true;
      }
    }
    return false;
  }

  private RecordOutcome aloneOnce(Recorder.Pending pending) {
    long start = System.nanoTime();
    RecordOutcome outcome =
        Database.inTransaction(
            dataSource,
            "recording result of " + pending.result().service(),
            connection -> {
              RecordOutcome recorded = recording.record(connection, pending.result());
              pending.also().run(connection, recorded);
              return recorded;
            });
    metrics.transaction(System.nanoTime() - start);
    return outcome;
  }

  /** Where a whole-transaction failure happened: before the commit, or in it (outcome unknown). */
  private enum Stage {
    WORK,
    COMMIT
  }

  /** One transaction of at most {@code maxBatch} results, filling their entries of {@code out}. */
  private final class Chunk {
    private final List<Recorder.Pending> pending;
    private final List<Integer> indexes;
    private final Recorder.Recorded[] out;
    private final List<Integer> inTransaction = new ArrayList<>();

    Chunk(List<Recorder.Pending> pending, List<Integer> indexes, Recorder.Recorded[] out) {
      this.pending = pending;
      this.indexes = indexes;
      this.out = out;
    }

    void record() {
      long start = System.nanoTime();
      Stage stage = Stage.WORK;
      try (Connection connection = dataSource.getConnection()) {
        connection.setAutoCommit(false);
        try {
          try {
            togetherUnlessConflicting(connection);
          } catch (SQLException | RuntimeException e) {
            rollbackQuietly(connection, e);
            if (!connection.isValid(VALID_SECONDS)) {
              throw e; // the transaction is lost, not one result's work: retried alone below
            }
            // One result (or its own work) failed the set-based statements: redo the chunk with
            // a savepoint per result, so only that one is rolled back.
            metrics.savepointRedo();
            LOG.info(
                "batch redone with a savepoint per result results={} error={}",
                indexes.size(),
                e.toString());
            indexes.forEach(i -> out[i] = null);
            inTransaction.clear();
            oneByOne(connection);
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
        retryAlone(stage, e);
        return;
      }
      long nanos = System.nanoTime() - start;
      metrics.batch(indexes.size());
      inTransaction.forEach(i -> metrics.transaction(nanos));
    }

    /**
     * {@link #together}, done again from the start when PostgreSQL aborted the transaction for a
     * deadlock or a serialization failure: that is two transactions' timing, not one result's
     * fault, and one result redone alone could hit it as well. Throws the last failure.
     */
    private void togetherUnlessConflicting(Connection connection) throws SQLException {
      for (int attempt = 1; ; attempt++) {
        try {
          together(connection);
          return;
        } catch (SQLException | RuntimeException e) {
          if (!conflict(e) || attempt == CONFLICT_ATTEMPTS) {
            throw e;
          }
          connection.rollback();
          indexes.forEach(i -> out[i] = null);
          inTransaction.clear();
          metrics.conflictRedo();
          LOG.info(
              "batch redone after a conflict with another transaction results={} attempt={}"
                  + " error={}",
              indexes.size(),
              attempt,
              e.toString());
        }
      }
    }

    /** The common case: all results together, then each one's own work, without savepoints. */
    private void together(Connection connection) throws SQLException {
      List<ProbeResult> results = indexes.stream().map(i -> pending.get(i).result()).toList();
      List<Recorder.Recorded> recorded = recording.record(connection, results);
      for (int k = 0; k < indexes.size(); k++) {
        int i = indexes.get(k);
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

    /** Each result and its own work under a savepoint: a failure undoes only that one. */
    private void oneByOne(Connection connection) throws SQLException {
      for (int i : indexes) {
        Recorder.Pending p = pending.get(i);
        Savepoint savepoint = connection.setSavepoint();
        try {
          RecordOutcome outcome = recording.record(connection, p.result());
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
    private void retryAlone(Stage stage, Exception cause) {
      metrics.fallback();
      LOG.warn(
          "batch transaction failed, recording its results one by one results={} stage={}"
              + " error={}",
          indexes.size(),
          stage,
          cause.toString());
      for (int i : indexes) {
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
          out[i] = new Recorder.Recorded(p.result(), alone(p), null);
        } catch (RuntimeException e) {
          out[i] = new Recorder.Recorded(p.result(), null, e);
        }
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
