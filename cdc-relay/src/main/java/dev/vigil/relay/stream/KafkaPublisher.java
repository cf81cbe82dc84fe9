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
 * {@code max.block.ms}, buffer full), here; meanwhile {@link PendingAcks#pendingAck()} grows from
 * the moment the batch started and {@link PendingAcks#pendingReason()} says why, so the relay's
 * health can say so.
 */
final class KafkaPublisher implements BatchPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaPublisher.class);
  private static final Duration SEND_RETRY_BACKOFF = Duration.ofMillis(200);

  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private final RelayMetrics metrics;
  private final PendingAcks acks;

  KafkaPublisher(
      Producer<byte[], byte[]> producer,
      String topic,
      RelayMetrics metrics,
      Runnable onFirstBatch) {
    this.producer = producer;
    this.topic = topic;
    this.metrics = metrics;
    this.acks = new PendingAcks(onFirstBatch);
  }

  @Override
  public void handleBatch(
      List<RecordChangeEvent<SourceRecord>> batch,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    long started = System.nanoTime();
    int events = 0;
    long lastCommitMs = 0;
    acks.batchStarted();
    try {
      for (RecordChangeEvent<SourceRecord> event : batch) {
        SourceRecord record = event.record();
        if (topic.equals(record.topic())) {
          ProducerRecord<byte[], byte[]> producerRecord =
              RecordMapping.toProducerRecord(topic, record);
          acks.add(producerRecord, send(producerRecord));
          events++;
          lastCommitMs = Math.max(lastCommitMs, RecordMapping.sourceCommitMs(record));
        }
      }
      if (!acks.isEmpty()) {
        producer.flush();
        acks.awaitAll(RelaySendException::refused);
      }
    } catch (RuntimeException | InterruptedException e) {
      acks.batchFailed(e);
      throw e;
    } finally {
      acks.clear();
    }
    acks.batchEnded();
    int safe = TransactionBoundary.lastSafeIndex(batch, e -> e.record().sourceOffset());
    for (int i = 0; i <= safe; i++) {
      committer.markProcessed(batch.get(i));
    }
    committer.markBatchFinished();
    Duration sendTime = Duration.ofNanos(System.nanoTime() - started);
    metrics.batchRelayed(events, sendTime, lastCommitMs);
    if (LOG.isDebugEnabled() && events > 0) {
      LOG.debug(
          "batch relayed events={} records={} sendMs={} commitToAckMs={}",
          events,
          batch.size(),
          sendTime.toMillis(),
          System.currentTimeMillis() - lastCommitMs);
    }
    acks.batchRelayed();
  }

  @Override
  public PendingAcks acks() {
    return acks;
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
    String reason = e.getClass().getSimpleName() + ": " + e.getMessage();
    acks.notAccepted(reason);
    LOG.warn("kafka send not accepted, retrying topic={} error={}", topic, reason);
    Thread.sleep(SEND_RETRY_BACKOFF);
  }
}
