package dev.vigil.relay.stream;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the offsets topic {@code read_committed} with one consumer that stays open: the first
 * {@link #catchUp()} reads it from the beginning, every later one only what was committed since,
 * always up to the last stable offset at the time of the call.
 *
 * <p>Why it stays open: Debezium's PostgreSQL task asks the offset store for its offsets at every
 * offset commit (to confirm the slot's LSN), i.e. after every batch. A consumer created, pointed at
 * the topic and closed for each of those, reading the whole topic again each time, cost more CPU
 * than everything else the relay does per batch (JFR of a 100,000-row catch-up, see the README).
 * The answer is the same: what the topic holds up to its last stable offset.
 *
 * <p>Not thread-safe: {@link KafkaOffsetStore} calls it under its lock.
 */
final class OffsetsTopicReader implements AutoCloseable {
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  private final String topic;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Map<ByteBuffer, ByteBuffer> latest = new HashMap<>();
  private List<TopicPartition> partitions;
  private long recordsRead;

  OffsetsTopicReader(Map<String, Object> properties, String topic) {
    this.topic = topic;
    Map<String, Object> props = new HashMap<>(properties);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.remove(ConsumerConfig.GROUP_ID_CONFIG);
    this.consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /**
   * Every committed key and its latest value (tombstones remove a key) up to the last stable offset
   * now; empty while the topic does not exist. The map is this reader's own: read it before the
   * next call.
   *
   * @throws KafkaException if Kafka does not answer within the read timeout; the reader is then
   *     unusable (its position is unknown) and must be closed
   */
  Map<ByteBuffer, ByteBuffer> catchUp() {
    if (partitions == null && !assign()) {
      return latest;
    }
    // With read_committed, the end offsets are the last stable offsets: everything before them is
    // committed or aborted, nothing is still open.
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions, READ_TIMEOUT);
    long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
    while (!caughtUp(end)) {
      if (System.nanoTime() > deadline) {
        throw new KafkaException("offsets topic " + topic + " not read within " + READ_TIMEOUT);
      }
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
        recordsRead++;
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

  /** How many records this reader has read so far (each committed record once). */
  long recordsRead() {
    return recordsRead;
  }

  private boolean assign() {
    // Not partitionsFor(): for a topic that does not exist yet it waits for the whole timeout.
    List<PartitionInfo> infos = consumer.listTopics(READ_TIMEOUT).get(topic);
    if (infos == null || infos.isEmpty()) {
      return false;
    }
    partitions = infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    return true;
  }

  private boolean caughtUp(Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey(), READ_TIMEOUT) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    consumer.close();
  }
}
