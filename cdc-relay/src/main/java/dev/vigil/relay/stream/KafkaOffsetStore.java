package dev.vigil.relay.stream;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
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
 * {@link #get} reads the topic afresh every time (the engine asks when its task starts, including
 * Debezium's own restarts of the task); {@link #set}, which the engine calls after a batch was
 * marked processed, stores nothing: the same offsets are already committed with the batch.
 *
 * <p>Instantiated by Debezium through its no-argument constructor; configured with the {@code
 * vigil.offsets.kafka.*} engine properties (every {@code vigil.offsets.kafka.consumer.*} property
 * is passed to the consumer without the prefix).
 */
public final class KafkaOffsetStore implements OffsetBackingStore {
  static final String TOPIC = "vigil.offsets.kafka.topic";
  static final String CONSUMER_PREFIX = "vigil.offsets.kafka.consumer.";

  private static final Logger LOG = LoggerFactory.getLogger(KafkaOffsetStore.class);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  /** Reads started again when an interrupt arrives during one (each one is bounded). */
  private static final int READ_ATTEMPTS_WHEN_INTERRUPTED = 3;

  private String topic;
  private Map<String, Object> consumerProperties;

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
  public void stop() {
    // Nothing held between reads.
  }

  @Override
  public Future<Map<ByteBuffer, ByteBuffer>> get(Collection<ByteBuffer> keys) {
    try {
      Map<ByteBuffer, ByteBuffer> stored = readAll(consumerProperties, topic);
      Map<ByteBuffer, ByteBuffer> result = new HashMap<>();
      for (ByteBuffer key : keys) {
        result.put(key, stored.get(key));
      }
      LOG.info(
          "offsets read topic={} keys={} found={}",
          topic,
          keys.size(),
          result.values().stream().filter(v -> v != null).count());
      return CompletableFuture.completedFuture(result);
    } catch (KafkaException e) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("cannot read offsets from topic " + topic, e));
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

  /**
   * Every committed key and its latest value in {@code topic} (tombstones remove a key), read
   * {@code read_committed} from the beginning up to the last stable offset; empty when the topic
   * does not exist.
   *
   * <p>Debezium asks for offsets on the task's polling thread at every commit, also while the
   * engine is stopping that task (PostgreSQL restarted or failed over): the thread is then
   * interrupted. A Kafka consumer used or closed on an interrupted thread fails ("Failed to close
   * fetcher", then Connect's "Failed to fetch offsets", both at ERROR) although nothing is wrong
   * with the offsets. The read is bounded ({@link #READ_TIMEOUT}), so it runs with the interrupt
   * held back and restores it afterwards: the caller still sees it and stops.
   */
  static Map<ByteBuffer, ByteBuffer> readAll(Map<String, Object> properties, String topic) {
    boolean interrupted = Thread.interrupted();
    try {
      for (int attempt = 1; ; attempt++) {
        try {
          return readOnce(properties, topic);
        } catch (InterruptException e) {
          // Interrupted during the read: keep the interrupt for the caller and read once more.
          Thread.interrupted();
          interrupted = true;
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

  private static Map<ByteBuffer, ByteBuffer> readOnce(
      Map<String, Object> properties, String topic) {
    Map<String, Object> props = new HashMap<>(properties);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.remove(ConsumerConfig.GROUP_ID_CONFIG);
    KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    try {
      return read(consumer, topic);
    } finally {
      closeUninterrupted(consumer);
    }
  }

  private static Map<ByteBuffer, ByteBuffer> read(
      KafkaConsumer<byte[], byte[]> consumer, String topic) {
    Map<ByteBuffer, ByteBuffer> latest = new HashMap<>();
    // Not partitionsFor(): for a topic that does not exist yet it waits for the whole timeout.
    List<PartitionInfo> infos = consumer.listTopics(READ_TIMEOUT).get(topic);
    if (infos == null || infos.isEmpty()) {
      return latest;
    }
    List<TopicPartition> partitions =
        infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    // With read_committed, the end offsets are the last stable offsets: everything before them
    // is committed or aborted, nothing is still open.
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions, READ_TIMEOUT);
    long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
    while (!caughtUp(consumer, end)) {
      if (System.nanoTime() > deadline) {
        throw new KafkaException("offsets topic " + topic + " not read within " + READ_TIMEOUT);
      }
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
        if (r.key() == null) {
          continue;
        }
        if (r.value() == null) {
          latest.remove(ByteBuffer.wrap(r.key()));
        } else {
          latest.put(ByteBuffer.wrap(r.key()), ByteBuffer.wrap(r.value()));
        }
      }
    }
    return latest;
  }

  /** Closes with the interrupt held back (an interrupted close logs a fetcher error). */
  private static void closeUninterrupted(KafkaConsumer<byte[], byte[]> consumer) {
    boolean interrupted = Thread.interrupted();
    try {
      consumer.close();
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static boolean caughtUp(
      KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey(), READ_TIMEOUT) < e.getValue()) {
        return false;
      }
    }
    return true;
  }
}
