package dev.vigil.relay.stream;

import dev.vigil.relay.ops.RelayMetrics;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes each engine batch to Kafka and only then tells Debezium how far it got.
 *
 * <p>Guarantees: records are sent in the order the engine delivers them (commit order), with the
 * service name as the key, so one service's events land in one partition in commit order. {@link
 * DebeziumEngine.RecordCommitter#markProcessed} is called only after {@code flush()} returned and
 * every send's future completed without error, so the offsets Debezium stores (and the slot
 * position it confirms) are never ahead of Kafka's acknowledgements. And it is called only up to
 * the batch's last record that ends a transaction ({@link TransactionBoundary}): a stored offset is
 * always a commit, never a position inside a transaction, so a restart at any moment repeats the
 * last transaction at worst and never skips the rest of one (which Debezium 3.6 would do for rows
 * sharing one WAL record, as a COPY writes them).
 *
 * <p>A send that fails is never skipped: the batch throws, the engine stops without storing its
 * offsets, and the relay restarts from the last stored offset (at-least-once; the unacknowledged
 * tail may be sent again). Retriable errors are retried by the producer itself (its delivery
 * timeout is unbounded) or, when the producer does not even accept the record (no metadata within
 * {@code max.block.ms}, buffer full), here; meanwhile {@link #pendingAck()} grows from the moment
 * the batch started and {@link #pendingReason()} says why, so the relay's health can say so.
 */
final class KafkaPublisher implements BatchPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaPublisher.class);
  private static final Duration SEND_RETRY_BACKOFF = Duration.ofMillis(200);

  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private final RelayMetrics metrics;
  private final Runnable onFirstBatch;
  private volatile boolean firstBatchSeen;
  private volatile long sendingSinceNanos;
  private volatile String pendingReason;

  KafkaPublisher(
      Producer<byte[], byte[]> producer,
      String topic,
      RelayMetrics metrics,
      Runnable onFirstBatch) {
    this.producer = producer;
    this.topic = topic;
    this.metrics = metrics;
    this.onFirstBatch = onFirstBatch;
  }

  @Override
  public void handleBatch(
      List<RecordChangeEvent<SourceRecord>> batch,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    long started = System.nanoTime();
    List<Future<RecordMetadata>> sends = new ArrayList<>(batch.size());
    List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>(batch.size());
    long lastCommitMs = 0;
    // The clock starts before the first send(): a send blocked before it reached the producer's
    // buffer (no metadata while the broker is down) counts as waiting for Kafka too.
    sendingSinceNanos = started;
    try {
      for (RecordChangeEvent<SourceRecord> event : batch) {
        SourceRecord record = event.record();
        if (topic.equals(record.topic())) {
          ProducerRecord<byte[], byte[]> producerRecord =
              RecordMapping.toProducerRecord(topic, record);
          sends.add(send(producerRecord));
          sent.add(producerRecord);
          lastCommitMs = Math.max(lastCommitMs, RecordMapping.sourceCommitMs(record));
        }
      }
      if (!sends.isEmpty()) {
        producer.flush();
        for (int i = 0; i < sends.size(); i++) {
          awaitAck(sends.get(i), sent.get(i));
        }
      }
    } finally {
      sendingSinceNanos = 0;
      pendingReason = null;
    }
    int safe = TransactionBoundary.lastSafeIndex(batch, e -> e.record().sourceOffset());
    for (int i = 0; i <= safe; i++) {
      committer.markProcessed(batch.get(i));
    }
    committer.markBatchFinished();
    Duration sendTime = Duration.ofNanos(System.nanoTime() - started);
    metrics.batchRelayed(sends.size(), sendTime, lastCommitMs);
    if (LOG.isDebugEnabled() && !sends.isEmpty()) {
      LOG.debug(
          "batch relayed events={} records={} sendMs={} commitToAckMs={}",
          sends.size(),
          batch.size(),
          sendTime.toMillis(),
          System.currentTimeMillis() - lastCommitMs);
    }
    if (!firstBatchSeen) {
      firstBatchSeen = true;
      onFirstBatch.run();
    }
  }

  /**
   * How long the current batch has been waiting for Kafka (0 = none): from the start of its first
   * send until every record is acknowledged.
   */
  @Override
  public Duration pendingAck() {
    long since = sendingSinceNanos;
    return since == 0 ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - since);
  }

  @Override
  public boolean relayedABatch() {
    return firstBatchSeen;
  }

  /** The last reason Kafka gave for not accepting a record of the current batch, or null. */
  @Override
  public String pendingReason() {
    return pendingReason;
  }

  /**
   * Hands one record to the producer, retrying until it is accepted. The producer reports some
   * refusals (no topic metadata within {@code max.block.ms}, buffer full) not by throwing but by
   * returning an already-failed future; nothing was appended then, so the same record is retried
   * before any later record of the batch is sent — otherwise a later record could reach the
   * partition first and the replay after a restart would put this one behind it.
   */
  private Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record)
      throws InterruptedException {
    while (true) {
      Future<RecordMetadata> future;
      try {
        future = producer.send(record);
      } catch (RetriableException e) {
        notAccepted(e);
        continue;
      }
      if (!future.isDone()) {
        return future;
      }
      try {
        future.get();
        return future;
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof RetriableException retriable)) {
          throw RelaySendException.refused(record, e.getCause());
        }
        notAccepted(retriable);
      }
    }
  }

  private void notAccepted(RetriableException e) throws InterruptedException {
    pendingReason = e.getClass().getSimpleName() + ": " + e.getMessage();
    LOG.warn("kafka send not accepted, retrying topic={} error={}", topic, pendingReason);
    Thread.sleep(SEND_RETRY_BACKOFF);
  }

  private static void awaitAck(Future<RecordMetadata> send, ProducerRecord<byte[], byte[]> record)
      throws InterruptedException {
    try {
      send.get();
    } catch (ExecutionException e) {
      throw RelaySendException.refused(record, e.getCause());
    }
  }
}
