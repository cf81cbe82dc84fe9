package dev.vigil.relay;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a topic the way a client outside Vigil would: raw bytes, no Vigil code, every partition
 * from the beginning. Not thread-safe; one per test.
 */
final class TopicReader implements AutoCloseable {
  /** One record as it sits in Kafka. */
  record Received(
      int partition, long offset, byte[] key, byte[] value, Map<String, String> headers) {
    String keyText() {
      return key == null ? null : new String(key, StandardCharsets.UTF_8);
    }

    String valueText() {
      return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }
  }

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final List<Received> received = new ArrayList<>();

  TopicReader(String bootstrapServers, String topic) {
    this(bootstrapServers, topic, "read_committed");
  }

  /** A reader with the given {@code isolation.level}: read_committed or read_uncommitted. */
  TopicReader(String bootstrapServers, String topic, String isolationLevel) {
    consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                isolationLevel,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                5000),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer());
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
            .map(info -> new TopicPartition(topic, info.partition()))
            .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  /** Polls once more and returns everything read so far (in partition order per partition). */
  List<Received> poll() {
    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
      Map<String, String> headers = new HashMap<>();
      for (Header h : r.headers()) {
        headers.put(
            h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
      }
      received.add(new Received(r.partition(), r.offset(), r.key(), r.value(), headers));
    }
    return received;
  }

  @Override
  public void close() {
    consumer.close();
  }
}
