package dev.vigil.relay.stream;

import dev.vigil.relay.ops.RelayMetrics;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RetriableException;
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
 * is final: another relay took over.
 */
final class ExactlyOncePublisher implements BatchPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(ExactlyOncePublisher.class);

  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private final String transactionalId;
  private final OffsetRecords offsets;
  private final RelayMetrics metrics;
  // The sends of the open transaction, which may span batches.
  private final PendingAcks acks;
  // Engine thread only (and engineStopped(), after the engine thread is done).
  private boolean transactionOpen;
  private boolean sourceTransactionOpen;
  private int uncommittedEvents;

  ExactlyOncePublisher(
      Producer<byte[], byte[]> producer,
      String topic,
      String transactionalId,
      OffsetRecords offsets,
      RelayMetrics metrics,
      Runnable onFirstBatch) {
    this.producer = producer;
    this.topic = topic;
    this.transactionalId = transactionalId;
    this.offsets = offsets;
    this.metrics = metrics;
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
        }
        if (topic.equals(record.topic())) {
          send(RecordMapping.toProducerRecord(topic, record));
          uncommittedEvents++;
          lastCommitMs = Math.max(lastCommitMs, RecordMapping.sourceCommitMs(record));
        }
        if (i == safe) {
          send(offsets.of(record));
          committedEvents = commit();
        }
        if (TransactionBoundary.isSafe(record.sourceOffset())) {
          sourceTransactionOpen = false;
        }
      }
    } catch (RuntimeException | InterruptedException e) {
      acks.batchFailed(e);
      if (e instanceof KafkaException && fenced(e) instanceof RelayFencedException f) {
        throw f;
      }
      throw e;
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

  private RuntimeException sendFailed(ProducerRecord<byte[], byte[]> record, Throwable cause) {
    RuntimeException fenced = fenced(cause);
    if (fenced instanceof RelayFencedException) {
      return fenced;
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

  /** The fencing exception if {@code error} (or a cause) is one, else {@code error} unchanged. */
  private RuntimeException fenced(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException) {
        LOG.error(
            "relay fenced, stopping transactional_id={} error={}", transactionalId, t.toString());
        return new RelayFencedException(transactionalId, t);
      }
    }
    return error instanceof RuntimeException r ? r : new KafkaException(error);
  }

  @Override
  public void engineStopped() {
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
