package dev.vigil.relay.stream;

import dev.vigil.contract.AlertTopic;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Kafka refused a record for good (the producer and the publisher retry transient errors
 * themselves). The batch is not marked processed, so its offsets are not stored and it is sent
 * again after the restart; the message names the record (event id, service, size) and Kafka's
 * reason, for the relay's health and log.
 */
final class RelaySendException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private static final int MAX_SHOWN_KEY_CHARS = 80;

  private RelaySendException(String message, Throwable cause) {
    super(message, cause);
  }

  static RelaySendException refused(ProducerRecord<byte[], byte[]> record, Throwable cause) {
    return new RelaySendException(
        "Kafka refused a record for good: topic="
            + record.topic()
            + " event_id="
            + header(record, AlertTopic.HEADER_EVENT_ID)
            + " service="
            + shown(record.key())
            + " value_bytes="
            + (record.value() == null ? 0 : record.value().length)
            + " error="
            + (cause == null
                ? "unknown"
                : cause.getClass().getSimpleName() + ": " + cause.getMessage()),
        cause);
  }

  private static String header(ProducerRecord<byte[], byte[]> record, String key) {
    Header header = record.headers().lastHeader(key);
    return header == null || header.value() == null ? "none" : shown(header.value());
  }

  /** At most a few dozen characters of an outside value, never a whole hostile key. */
  private static String shown(byte[] bytes) {
    if (bytes == null) {
      return "none";
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    return text.length() <= MAX_SHOWN_KEY_CHARS
        ? text
        : text.substring(0, MAX_SHOWN_KEY_CHARS) + "…(" + bytes.length + " bytes)";
  }
}
