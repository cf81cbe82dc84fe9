package dev.vigil.relay.stream;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

/** How an engine record becomes a Kafka record, and what the publishers read from its position. */
final class RecordMapping {
  /** Topic of the connector's transaction metadata (BEGIN and END records). */
  static final String TRANSACTION_TOPIC = EngineProperties.TOPIC_PREFIX + ".transaction";

  private RecordMapping() {}

  static ProducerRecord<byte[], byte[]> toProducerRecord(String topic, SourceRecord record) {
    RecordHeaders headers = new RecordHeaders();
    for (Header header : record.headers()) {
      if (header.value() != null) {
        headers.add(header.key(), utf8(header.value()));
      }
    }
    return new ProducerRecord<>(
        topic,
        null,
        record.timestamp(),
        record.key() == null ? null : utf8(record.key()),
        record.value() == null ? null : utf8(record.value()),
        headers);
  }

  /** The payload column is jsonb, which Debezium hands over as its JSON text: sent as is. */
  private static byte[] utf8(Object value) {
    return String.valueOf(value).getBytes(StandardCharsets.UTF_8);
  }

  static long sourceCommitMs(SourceRecord record) {
    Map<String, ?> offset = record.sourceOffset();
    Object micros = offset == null ? null : offset.get("ts_usec");
    return micros instanceof Number number ? number.longValue() / 1000 : 0;
  }

  /** Whether {@code record} is the BEGIN of a PostgreSQL transaction (transaction metadata). */
  static boolean isBegin(SourceRecord record) {
    return TRANSACTION_TOPIC.equals(record.topic())
        && record.value() instanceof Struct value
        && value.schema().field("status") != null
        && "BEGIN".equals(value.getString("status"));
  }
}
