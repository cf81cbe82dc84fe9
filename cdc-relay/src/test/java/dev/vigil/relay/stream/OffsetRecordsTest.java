package dev.vigil.relay.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.MemoryOffsetBackingStore;
import org.apache.kafka.connect.storage.OffsetStorageReaderImpl;
import org.apache.kafka.connect.storage.OffsetStorageWriter;
import org.apache.kafka.connect.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * The offsets the relay commits with each batch are the bytes the embedded engine's own offset
 * writer would store, and its reader finds them: otherwise a restart would not resume from them.
 */
class OffsetRecordsTest {
  private static final String ENGINE = "vigil-relay-slot_a";
  private final Map<String, Object> partition = Map.of("server", "vigil_relay");
  private final Map<String, Object> offset =
      Map.of("lsn_proc", 123456789L, "lsn_commit", 123456789L, "messageType", "COMMIT");

  @Test
  void sameBytesAsKafkaConnectsOffsetWriterUnderTheEnginesName() throws Exception {
    Capture store = new Capture();
    OffsetStorageWriter writer =
        new OffsetStorageWriter(store, ENGINE, converter(true), converter(false));
    writer.offset(partition, offset);
    assertThat(writer.beginFlush(5, TimeUnit.SECONDS)).isTrue();
    writer.doFlush((error, result) -> {}).get(5, TimeUnit.SECONDS);

    ProducerRecord<byte[], byte[]> record = new OffsetRecords("offsets", ENGINE).of(sourceRecord());

    assertThat(store.written).hasSize(1);
    Map.Entry<ByteBuffer, ByteBuffer> expected = store.written.entrySet().iterator().next();
    assertThat(ByteBuffer.wrap(record.key())).isEqualTo(expected.getKey());
    assertThat(ByteBuffer.wrap(record.value())).isEqualTo(expected.getValue());
    assertThat(record.topic()).isEqualTo("offsets");
    assertThat(ByteBuffer.wrap(record.key()).slice(0, ENGINE.length() + 4))
        .isEqualTo(ByteBuffer.wrap(new OffsetRecords("offsets", ENGINE).keyPrefix()));
  }

  @Test
  void theEnginesReaderFindsTheOffset() {
    ProducerRecord<byte[], byte[]> record = new OffsetRecords("offsets", ENGINE).of(sourceRecord());
    Capture store = new Capture();
    store.written.put(ByteBuffer.wrap(record.key()), ByteBuffer.wrap(record.value()));
    OffsetStorageReaderImpl reader =
        new OffsetStorageReaderImpl(store, ENGINE, converter(true), converter(false));
    assertThat(reader.offset(partition)).isEqualTo(offset);
  }

  private SourceRecord sourceRecord() {
    return new SourceRecord(partition, offset, "vigil.alerts", null, null);
  }

  private static JsonConverter converter(boolean key) {
    JsonConverter converter = new JsonConverter();
    converter.configure(Map.of("schemas.enable", "false"), key);
    return converter;
  }

  /** Keeps what the writer stores; hands it to the reader. */
  private static final class Capture extends MemoryOffsetBackingStore {
    final Map<ByteBuffer, ByteBuffer> written = new HashMap<>();

    @Override
    public java.util.Set<Map<String, Object>> connectorPartitions(String connectorName) {
      return java.util.Set.of();
    }

    @Override
    public java.util.concurrent.Future<Void> set(
        Map<ByteBuffer, ByteBuffer> values, Callback<Void> callback) {
      written.putAll(values);
      if (callback != null) {
        callback.onCompletion(null, null);
      }
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public java.util.concurrent.Future<Map<ByteBuffer, ByteBuffer>> get(
        java.util.Collection<ByteBuffer> keys) {
      Map<ByteBuffer, ByteBuffer> result = new HashMap<>();
      keys.forEach(k -> result.put(k, written.get(k)));
      return CompletableFuture.completedFuture(result);
    }
  }
}
