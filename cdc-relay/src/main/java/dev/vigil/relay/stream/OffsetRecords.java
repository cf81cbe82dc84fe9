package dev.vigil.relay.stream;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Turns a source record's position into a record of the offsets topic, byte for byte what Kafka
 * Connect's {@code OffsetStorageWriter} would store for the embedded engine: key {@code ["<engine
 * name>", <source partition>]} and value {@code <source offset>}, both JSON without schemas (the
 * converters the engine configures). {@link KafkaOffsetStore} hands these bytes back to the engine,
 * which decodes them with the same converters; the topic is also in the format of a Kafka Connect
 * offsets topic.
 *
 * <p>Next to the offsets, each committed transaction also stores where they come from ({@link
 * StoredPositionCheck.Origin}: the server's system identifier and timeline) under a key of its own,
 * {@code ["<engine name>-origin", <source partition>]}: the engine never asks for it, and a
 * tombstone of the offsets' key leaves it alone.
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

  /** The key under which the engine's offset of {@code partition} is stored. */
  byte[] key(Map<String, ?> partition) {
    return keys.fromConnectData(namespace, null, Arrays.asList(namespace, partition));
  }

  /** The key of the origin stored with the offsets of {@code partition}. */
  byte[] originKey(Map<String, ?> partition) {
    String name = namespace + "-origin";
    return keys.fromConnectData(name, null, Arrays.asList(name, partition));
  }

  /** The record that stores {@code origin} with the offsets of {@code record}'s partition. */
  ProducerRecord<byte[], byte[]> origin(SourceRecord record, StoredPositionCheck.Origin origin) {
    Map<String, Object> value = new LinkedHashMap<>();
    value.put("system_id", origin.systemId());
    value.put("timeline", origin.timeline());
    return new ProducerRecord<>(
        topic, originKey(record.sourcePartition()), values.fromConnectData(topic, null, value));
  }

  /** The origin in a stored origin value; empty when it is not one. */
  Optional<StoredPositionCheck.Origin> readOrigin(ByteBuffer stored) {
    Map<?, ?> map = map(stored);
    if (map != null
        && map.get("system_id") instanceof String systemId
        && map.get("timeline") instanceof Number timeline) {
      return Optional.of(new StoredPositionCheck.Origin(systemId, timeline.intValue()));
    }
    return Optional.empty();
  }

  /** The commit LSN of a stored offset value ({@code lsn_commit}, else {@code lsn}). */
  OptionalLong readLsn(ByteBuffer stored) {
    Map<?, ?> map = map(stored);
    if (map == null) {
      return OptionalLong.empty();
    }
    Object lsn = map.get(TransactionBoundary.LSN_COMMIT);
    if (!(lsn instanceof Number)) {
      lsn = map.get(TransactionBoundary.LSN);
    }
    return lsn instanceof Number n ? OptionalLong.of(n.longValue()) : OptionalLong.empty();
  }

  private Map<?, ?> map(ByteBuffer stored) {
    if (stored == null) {
      return null;
    }
    byte[] bytes = new byte[stored.remaining()];
    stored.duplicate().get(bytes);
    try {
      return values.toConnectData(topic, bytes).value() instanceof Map<?, ?> m ? m : null;
    } catch (DataException e) {
      return null;
    }
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
