package dev.vigil.relay.stream;

import dev.vigil.relay.ops.RelayMetrics;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the engine's batches as Kafka transactions that carry the events and the relay's
 * offsets together, so a {@code read_committed} consumer sees every outbox row exactly once.
 *
 * <p>A Kafka transaction commits exactly at the batch's last record that ends a PostgreSQL
 * transaction ({@link TransactionBoundary}): its events, then that record's source offset in the
 * offsets topic ({@link OffsetRecords}), then {@code commitTransaction()}. Only after the commit
 * are those records marked processed, so Debezium confirms the position to the replication slot
 * only once Kafka has committed it. Records after that point (the start of a PostgreSQL transaction
 * whose END is in a later batch) are sent into a new Kafka transaction that stays open until a
 * later batch brings the END: they are invisible to {@code read_committed} readers until then, and
 * a crash or stop in between aborts them (the next relay's {@code initTransactions}, or the
 * broker's transaction timeout) while the committed offsets make the next run stream that
 * PostgreSQL transaction again from its BEGIN.
 *
 * <p>Debezium restarts its connector task by itself after some errors (a broken replication
 * connection) and then streams again from the committed offset; a BEGIN arriving while a PostgreSQL
 * transaction is still open shows it. The open Kafka transaction, whose records are about to come
 * again, is aborted first.
 *
 * <p>Any failure fails the batch: the engine stops without marking anything and the relay restarts
 * from the committed offsets, aborting the open transaction. Fencing ({@link RelayFencedException})
 * is final: another relay took over. A transaction the broker ended for its timeout is not fencing
 * ({@link #classified}).
 */
final class ExactlyOncePublisher implements BatchPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(ExactlyOncePublisher.class);
  // abortTransaction() waits up to max.block.ms (10 s) each time.
  private static final int ABORT_ATTEMPTS = 3;

  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private final String transactionalId;
  private final OffsetRecords offsets;
  private final RelayMetrics metrics;
  private final Supplier<StoredPositionCheck.Origin> origin;
  private final LargeTransactions large;
  // The sends of the open transaction, which may span batches.
  private final PendingAcks acks;
  // Engine thread only (and engineStopped(), after the engine thread is done).
  private boolean transactionOpen;
  private boolean sourceTransactionOpen;
  // The open PostgreSQL transaction: outbox rows sent so far, whether it is published in chunks.
  private int sourceRows;
  private long currentXid = -1;
  private boolean chunked;
  private int uncommittedEvents;
  // Position (lsn_commit, lsn) of the last offsets this publisher committed; -1 before the first.
  private long committedCommitLsn = -1;
  private long committedLsn = -1;

  ExactlyOncePublisher(
      Producer<byte[], byte[]> producer,
      String topic,
      String transactionalId,
      OffsetRecords offsets,
      RelayMetrics metrics,
      Supplier<StoredPositionCheck.Origin> origin,
      LargeTransactions large,
      Runnable onFirstBatch) {
    this.producer = producer;
    this.topic = topic;
    this.transactionalId = transactionalId;
    this.offsets = offsets;
    this.metrics = metrics;
    this.origin = origin;
    this.large = large;
    this.acks = new PendingAcks(onFirstBatch);
  }

  @Override
  public void handleBatch(
      List<RecordChangeEvent<SourceRecord>> batch,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    long started = System.nanoTime();
    int safe = TransactionBoundary.lastSafeIndex(batch, e -> e.record().sourceOffset());
    int committedEvents = 0;
    long lastCommitMs = 0;
    acks.batchStarted();
    try {
      for (int i = 0; i < batch.size(); i++) {
        SourceRecord record = batch.get(i).record();
        if (RecordMapping.isBegin(record)) {
          if (sourceTransactionOpen) {
            abortRedelivered(record);
          }
          sourceTransactionOpen = true;
          sourceRows = 0;
          chunked = large.began(xid(record));
        }
        if (topic.equals(record.topic())) {
          send(RecordMapping.toProducerRecord(topic, record));
          uncommittedEvents++;
          sourceRows++;
          large.rows(sourceRows);
          lastCommitMs = Math.max(lastCommitMs, RecordMapping.sourceCommitMs(record));
          if (chunked && large.chunkDue(uncommittedEvents)) {
            committedEvents += commit(); // a chunk: events only, its offsets come with the END
            large.chunkCommitted();
          }
        }
        if (TransactionBoundary.isSafe(record.sourceOffset()) && alreadyCommitted(record)) {
          discardRepeated(record);
        } else if (i == safe) {
          send(offsets.of(record));
          StoredPositionCheck.Origin server = origin.get();
          if (server != null) {
            send(offsets.origin(record, server));
          }
          committedEvents += commit();
          remember(record.sourceOffset());
        }
        if (TransactionBoundary.isSafe(record.sourceOffset())) {
          if (sourceTransactionOpen) {
            large.ended();
          }
          sourceTransactionOpen = false;
          chunked = false;
        }
      }
    } catch (InterruptedException e) {
      acks.batchFailed(e);
      throw e;
    } catch (RuntimeException e) {
      RuntimeException failure = classified(e);
      acks.batchFailed(failure);
      throw failure;
    }
    acks.batchEnded();
    for (int i = 0; i <= safe; i++) {
      committer.markProcessed(batch.get(i));
    }
    committer.markBatchFinished();
    metrics.batchRelayed(
        committedEvents, Duration.ofNanos(System.nanoTime() - started), lastCommitMs);
    if (safe >= 0) {
      acks.batchRelayed();
    }
  }

  /**
   * Sends one record in the open transaction (beginning one if none is). A send the producer
   * refused before it reached its buffer (no metadata within {@code max.block.ms}, a record over
   * {@code max.request.size}) comes back as a failed future and leaves the transaction in error:
   * that refusal ends the batch at once, as the reason, rather than the next send's "error state".
   */
  private void send(ProducerRecord<byte[], byte[]> record) throws InterruptedException {
    if (!transactionOpen) {
      producer.beginTransaction();
      transactionOpen = true;
    }
    Future<RecordMetadata> sent = producer.send(record);
    if (sent.isDone()) {
      try {
        sent.get();
      } catch (ExecutionException e) {
        throw sendFailed(record, e.getCause());
      }
    }
    acks.add(record, sent);
  }

  /** Waits for every send of the transaction, then commits it; returns its number of events. */
  private int commit() throws InterruptedException {
    producer.flush();
    acks.awaitAll(this::sendFailed);
    producer.commitTransaction();
    transactionOpen = false;
    int events = uncommittedEvents;
    uncommittedEvents = 0;
    acks.clear();
    return events;
  }

  /**
   * Whether {@code safe}, a record that ends a position, is at or before the last offsets this
   * publisher committed. Debezium restarts its task by itself after some errors, with the same
   * producer, and reads the offsets topic again: read before the markers of the last commit have
   * landed, it resumes from an older commit and streams transactions again that this publisher has
   * already committed. A transaction committed later ends at a higher commit LSN (PostgreSQL sends
   * transactions in commit order), so a position not above the committed one is a repeat.
   */
  /** The PostgreSQL xid of a BEGIN record ({@code txId} of its offset), or -1 when it has none. */
  private long xid(SourceRecord begin) {
    Object txId = begin.sourceOffset() == null ? null : begin.sourceOffset().get("txId");
    currentXid = txId instanceof Number n ? n.longValue() : -1;
    return currentXid;
  }

  private boolean alreadyCommitted(SourceRecord safe) {
    if (committedCommitLsn < 0
        || !(safe.sourceOffset().get(TransactionBoundary.LSN_COMMIT) instanceof Number commit)
        || !(safe.sourceOffset().get(TransactionBoundary.LSN) instanceof Number lsn)) {
      return false;
    }
    return commit.longValue() < committedCommitLsn
        || (commit.longValue() == committedCommitLsn && lsn.longValue() <= committedLsn);
  }

  private void remember(Map<String, ?> offset) {
    if (offset.get(TransactionBoundary.LSN_COMMIT) instanceof Number commit
        && offset.get(TransactionBoundary.LSN) instanceof Number lsn) {
      committedCommitLsn = commit.longValue();
      committedLsn = lsn.longValue();
    }
  }

  /**
   * Every record sent since the last commit belongs to transactions that ended at or before {@code
   * safe}, so all of them are repeats of what this publisher committed: their open Kafka
   * transaction is aborted, and the committed offsets stay where they are (never behind them).
   */
  private void discardRepeated(SourceRecord safe) {
    if (!transactionOpen) {
      return; // nothing sent since the commit: only this position is a repeat
    }
    LOG.warn(
        "records already committed streamed again (offsets read before the last commit's markers"
            + " landed); skipping them transactional_id={} discarded_events={} offset={}"
            + " committed_lsn_commit={}",
        transactionalId,
        uncommittedEvents,
        safe.sourceOffset(),
        committedCommitLsn);
    producer.abortTransaction();
    transactionOpen = false;
    uncommittedEvents = 0;
    acks.clear();
  }

  private RuntimeException sendFailed(ProducerRecord<byte[], byte[]> record, Throwable cause) {
    if (find(cause, ProducerFencedException.class) != null
        || find(cause, InvalidProducerEpochException.class) != null) {
      return cause instanceof RuntimeException r ? r : new KafkaException(cause); // classified()
    }
    if (cause instanceof RetriableException retriable) {
      return new IllegalStateException(
          "Kafka did not accept a record of the batch ("
              + retriable
              + "); its transaction is abandoned, the relay restarts from the committed"
              + " offsets",
          retriable);
    }
    return RelaySendException.refused(record, cause);
  }

  private void abortRedelivered(SourceRecord begin) {
    LOG.warn(
        "source transaction restarted before its end (Debezium restarted its task);"
            + " aborting the open Kafka transaction, its records come again"
            + " transactional_id={} uncommitted_events={} offset={}",
        transactionalId,
        uncommittedEvents,
        begin.sourceOffset());
    if (transactionOpen) {
      producer.abortTransaction();
      transactionOpen = false;
    }
    uncommittedEvents = 0;
    acks.clear();
  }

  /**
   * What a failed batch means. {@code ProducerFencedException}: a newer producer registered this
   * transactional id, another relay took over: final ({@link RelayFencedException}). {@code
   * InvalidProducerEpochException} alone does not say that: the broker also bumps the epoch when it
   * aborts a transaction that stayed open longer than {@code transaction.timeout.ms} (Kafka
   * unreachable that long with a transaction open, or a PostgreSQL transaction that took longer to
   * relay). Aborting tells the two apart (transaction version 2, the default of Kafka 4): after a
   * timeout the abort succeeds and the run restarts from the committed offsets like any failure; a
   * zombie's abort is refused with {@code ProducerFencedException}. With transaction version 1 both
   * are refused: the relay stops, as fenced. An abort Kafka does not answer (asked {@link
   * #ABORT_ATTEMPTS} times) leaves it undetermined: the run restarts, since stopping for good after
   * a broker outage would silence every alert.
   */
  private RuntimeException classified(RuntimeException error) {
    ProducerFencedException fenced = find(error, ProducerFencedException.class);
    if (fenced != null) {
      return stoppedForGood(fenced);
    }
    InvalidProducerEpochException epoch = find(error, InvalidProducerEpochException.class);
    if (epoch == null) {
      return error;
    }
    for (int attempt = 1; ; attempt++) {
      try {
        producer.abortTransaction();
        break;
      } catch (ProducerFencedException refused) {
        return stoppedForGood(refused);
      } catch (TimeoutException unanswered) {
        // Kafka keeps the pending abort; asking again waits for the same answer.
        if (attempt == ABORT_ATTEMPTS) {
          error.addSuppressed(unanswered);
          return error; // undetermined: restart like any failure rather than stop for good
        }
      } catch (RuntimeException other) {
        error.addSuppressed(other);
        return error;
      }
    }
    LOG.warn(
        "Kafka ended the open transaction (not fenced: the abort was accepted), restarting from"
            + " the committed offsets transactional_id={} uncommitted_events={} error={}",
        transactionalId,
        uncommittedEvents,
        epoch.toString());
    String which =
        sourceTransactionOpen
            ? " while it carried PostgreSQL transaction xid="
                + currentXid
                + " ("
                + sourceRows
                + " rows so far)"
            : "";
    if (sourceTransactionOpen) {
      large.timedOut();
    }
    transactionOpen = false;
    uncommittedEvents = 0;
    acks.clear();
    return new IllegalStateException(
        "Kafka ended the relay's open transaction ("
            + epoch
            + ")"
            + which
            + ", as it does for one open longer than transaction.timeout.ms; the relay restarts"
            + " from the committed offsets, nothing is skipped",
        error);
  }

  private RelayFencedException stoppedForGood(ProducerFencedException fenced) {
    LOG.error(
        "relay fenced, stopping transactional_id={} error={}", transactionalId, fenced.toString());
    return new RelayFencedException(transactionalId, fenced);
  }

  private static <T extends Throwable> T find(Throwable error, Class<T> type) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }

  @Override
  public void engineStopped() {
    large.runEnded();
    if (!transactionOpen) {
      return;
    }
    try {
      producer.abortTransaction();
      LOG.info(
          "open Kafka transaction aborted at stop transactional_id={} uncommitted_events={}",
          transactionalId,
          uncommittedEvents);
    } catch (RuntimeException e) {
      // Also a producer already closed by a stop that could not wait. The next relay's
      // initTransactions() (or the broker's timeout) aborts it instead.
      LOG.warn(
          "open Kafka transaction not aborted at stop transactional_id={} error={}",
          transactionalId,
          e.toString());
    } finally {
      transactionOpen = false;
    }
  }

  @Override
  public PendingAcks acks() {
    return acks;
  }
}
