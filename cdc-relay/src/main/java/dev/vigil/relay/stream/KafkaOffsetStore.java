package dev.vigil.relay.stream;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.storage.OffsetBackingStore;
import org.apache.kafka.connect.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Debezium's offset store for exactly-once delivery: a compacted Kafka topic that the relay writes
 * itself, inside the same Kafka transaction as the events of each batch ({@link
 * ExactlyOncePublisher}), and that this store reads back {@code read_committed}.
 *
 * <p>So the offsets the engine resumes from are exactly those of the last committed batch: a batch
 * whose transaction was aborted (the relay was killed, stopped or fenced before committing) left
 * neither events nor offsets for a {@code read_committed} reader, and its rows are streamed again.
 * {@link #get} reads what was committed up to the topic's last stable offset every time it is asked
 * (when the task starts, including Debezium's own restarts of the task, and at every offset commit,
 * where Debezium's PostgreSQL task reads its offsets to confirm the slot's LSN), with one consumer
 * kept open between reads that reads only what is new ({@link OffsetsTopicReader}); {@link #set},
 * which the engine calls after a batch was marked processed, stores nothing: the same offsets are
 * already committed with the batch.
 *
 * <p>Instantiated by Debezium through its no-argument constructor; configured with the {@code
 * vigil.offsets.kafka.*} engine properties (every {@code vigil.offsets.kafka.consumer.*} property
 * is passed to the consumer without the prefix).
 */
public final class KafkaOffsetStore implements OffsetBackingStore {
  static final String TOPIC = "vigil.offsets.kafka.topic";
  static final String CONSUMER_PREFIX = "vigil.offsets.kafka.consumer.";

  private static final Logger LOG = LoggerFactory.getLogger(KafkaOffsetStore.class);

  /** Reads started again when an interrupt arrives during one (each one is bounded). */
  private static final int READ_ATTEMPTS_WHEN_INTERRUPTED = 3;

  private String topic;
  private Map<String, Object> consumerProperties;
  // Guarded by this; created at the first read, closed after a failed read and at stop().
  private OffsetsTopicReader reader;
  private boolean readBefore;

  /** Used by Debezium. */
  public KafkaOffsetStore() {}

  @Override
  public void configure(WorkerConfig config) {
    Map<String, String> props = config.originalsStrings();
    topic = props.get(TOPIC);
    if (topic == null || topic.isBlank()) {
      throw new IllegalStateException("engine property " + TOPIC + " is missing");
    }
    consumerProperties = new HashMap<>();
    props.forEach(
        (key, value) -> {
          if (key.startsWith(CONSUMER_PREFIX)) {
            consumerProperties.put(key.substring(CONSUMER_PREFIX.length()), value);
          }
        });
  }

  @Override
  public void start() {
    LOG.info("offset store started topic={} isolation=read_committed", topic);
  }

  @Override
  public synchronized void stop() {
    closeReader();
  }

  /**
   * The stored value of each of {@code keys} (null when none), as far as committed.
   *
   * <p>Debezium asks on the task's polling thread at every offset commit, also while the engine is
   * stopping that task (PostgreSQL restarted or failed over): the thread is then interrupted. A
   * Kafka consumer used or closed on an interrupted thread fails ("Failed to close fetcher", then
   * Connect's "Failed to fetch offsets", both at ERROR) although nothing is wrong with the offsets.
   * Each read is bounded by the reader's timeout, so it runs with the interrupt held back, and the
   * interrupt is restored afterwards: the caller still sees it and stops.
   */
  @Override
  public synchronized Future<Map<ByteBuffer, ByteBuffer>> get(Collection<ByteBuffer> keys) {
    boolean interrupted = Thread.interrupted();
    try {
      Map<ByteBuffer, ByteBuffer> stored = readHoldingBackInterrupts();
      Map<ByteBuffer, ByteBuffer> result = new HashMap<>();
      for (ByteBuffer key : keys) {
        // A commit comes back without lsn_proc: see TransactionBoundary.forRestart.
        result.put(key, TransactionBoundary.forRestart(stored.get(key)));
      }
      // The first read is the one a start resumes from; the later ones come with every batch.
      if (!readBefore) {
        readBefore = true;
        LOG.info(
            "offsets read topic={} keys={} found={}",
            topic,
            keys.size(),
            result.values().stream().filter(v -> v != null).count());
      }
      return CompletableFuture.completedFuture(result);
    } catch (KafkaException e) {
      // Its position is unknown now: the next read starts with a new consumer, from the beginning.
      closeReader();
      return CompletableFuture.failedFuture(
          new IllegalStateException("cannot read offsets from topic " + topic, e));
    } finally {
      if (interrupted || Thread.interrupted()) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Reads; an interrupt arriving during a read is held back and the read made again. */
  private Map<ByteBuffer, ByteBuffer> readHoldingBackInterrupts() {
    boolean interrupted = false;
    try {
      for (int attempt = 1; ; attempt++) {
        try {
          if (reader == null) {
            reader = new OffsetsTopicReader(consumerProperties, topic);
          }
          return reader.catchUp();
        } catch (InterruptException e) {
          Thread.interrupted();
          interrupted = true;
          closeReader();
          if (attempt >= READ_ATTEMPTS_WHEN_INTERRUPTED) {
            throw e;
          }
          LOG.debug("offsets read interrupted, reading again topic={} attempt={}", topic, attempt);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Closes the reader with the interrupt held back (an interrupted close logs a fetcher error). */
  private void closeReader() {
    if (reader == null) {
      return;
    }
    boolean interrupted = Thread.interrupted();
    try {
      reader.close();
    } catch (RuntimeException e) {
      LOG.warn("offsets reader not closed cleanly topic={} error={}", topic, e.toString());
    } finally {
      reader = null;
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Stores nothing: the relay committed these offsets with the batch's events, in one Kafka
   * transaction, before it marked the batch processed. Reports success, so Debezium goes on to
   * confirm the position to the replication slot, which is therefore never ahead of Kafka.
   */
  @Override
  public Future<Void> set(Map<ByteBuffer, ByteBuffer> values, Callback<Void> callback) {
    if (callback != null) {
      callback.onCompletion(null, null);
    }
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public Set<Map<String, Object>> connectorPartitions(String connectorName) {
    // Only used by Kafka Connect's REST API for listing offsets; the embedded engine never asks.
    return Set.of();
  }
}
