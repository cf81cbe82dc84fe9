package dev.vigil.relay.stream;

import java.util.Arrays;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Turns a source record's position into a record of the offsets topic, byte for byte what Kafka
 * Connect's {@code OffsetStorageWriter} would store for the embedded engine: key {@code ["<engine
 * name>", <source partition>]} and value {@code <source offset>}, both JSON without schemas (the
 * converters the engine configures). {@link KafkaOffsetStore} hands these bytes back to the engine,
 * which decodes them with the same converters; the topic is also in the format of a Kafka Connect
 * offsets topic.
 */
final class OffsetRecords {
  private final String topic;
  private final String namespace;
  private final JsonConverter keys = new JsonConverter();
  private final JsonConverter values = new JsonConverter();

  /**
   * @param topic the compacted offsets topic
   * @param namespace the engine's name ({@code name} engine property), which prefixes every key
   */
  OffsetRecords(String topic, String namespace) {
    this.topic = topic;
    this.namespace = namespace;
    keys.configure(Map.of("schemas.enable", "false"), true);
    values.configure(Map.of("schemas.enable", "false"), false);
  }

  /** The offsets-topic record that stores {@code record}'s source offset. */
  ProducerRecord<byte[], byte[]> of(SourceRecord record) {
    byte[] key =
        keys.fromConnectData(namespace, null, Arrays.asList(namespace, record.sourcePartition()));
    byte[] value = values.fromConnectData(namespace, null, record.sourceOffset());
    return new ProducerRecord<>(topic, key, value);
  }

  /** The key prefix of every offset of this engine: {@code ["<engine name>",}. */
  byte[] keyPrefix() {
    byte[] whole = keys.fromConnectData(namespace, null, Arrays.asList(namespace));
    // ["name"] -> ["name",
    byte[] prefix = Arrays.copyOf(whole, whole.length);
    prefix[prefix.length - 1] = ',';
    return prefix;
  }
}
