package dev.vigil.connect;

import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a topic as a consumer outside Vigil would: raw bytes, {@code read_committed}, every
 * partition from the beginning. Not thread-safe; one per topic.
 */
final class TopicRecords implements AutoCloseable {
  private static final HexFormat HEX = HexFormat.of();

  /**
   * One record as it sits in Kafka, its bytes as hex so that equal means byte-identical.
   *
   * @param headers every header in record order, as {@code name=hex(value)}
   */
  record Wire(int partition, String keyHex, String valueHex, List<String> headers) {
    String key() {
      return text(keyHex);
    }

    String value() {
      return text(valueHex);
    }

    List<String> headerNames() {
      return headers.stream().map(h -> h.substring(0, h.indexOf('='))).toList();
    }

    /** The value of header {@code name} as UTF-8 text, or null. */
    String header(String name) {
      return headers.stream()
          .filter(h -> h.startsWith(name + "="))
          .map(h -> text(h.substring(name.length() + 1)))
          .findFirst()
          .orElse(null);
    }

    private static String text(String hex) {
      return hex == null ? null : new String(HEX.parseHex(hex), StandardCharsets.UTF_8);
    }
  }

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final List<Wire> received = new ArrayList<>();

  TopicRecords(String bootstrapServers, String topic) {
    consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer());
    // The connector creates its topic with its first record, which may still be on its way.
    List<TopicPartition> partitions =
        await("topic " + topic + " exists")
            .atMost(Duration.ofMinutes(2))
            .until(
                () ->
                    consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                        .map(info -> new TopicPartition(topic, info.partition()))
                        .toList(),
                found -> !found.isEmpty());
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  /** Polls once more and returns everything read so far (in offset order within a partition). */
  List<Wire> poll() {
    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
      received.add(wire(r));
    }
    return received;
  }

  /** {@code r} as a {@link Wire}. */
  static Wire wire(ConsumerRecord<byte[], byte[]> r) {
    List<String> headers = new ArrayList<>();
    for (Header h : r.headers()) {
      headers.add(h.key() + "=" + (h.value() == null ? "null" : HEX.formatHex(h.value())));
    }
    return new Wire(
        r.partition(),
        r.key() == null ? null : HEX.formatHex(r.key()),
        r.value() == null ? null : HEX.formatHex(r.value()),
        List.copyOf(headers));
  }

  @Override
  public void close() {
    consumer.close();
  }
}
