package dev.vigil.notifier.intake;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertTopic;
import dev.vigil.contract.InvalidAlertEventException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** One consumed record, classified as a valid receipt or a rejected (poison) record. */
sealed interface Checked {

  /** A valid alert event with the exact payload text it arrived with. */
  record Accepted(AlertEvent event, String payload, String topic, int partition, long offset)
      implements Checked {}

  /** Not a usable alert event: parked with the raw bytes and the reason. */
  record Rejected(
      String topic,
      int partition,
      long offset,
      byte[] key,
      byte[] value,
      String field,
      String reason)
      implements Checked {}

  /** Classifies {@code record}; never throws for bad input. */
  static Checked of(ConsumerRecord<byte[], byte[]> record) {
    String topic = record.topic();
    int partition = record.partition();
    long offset = record.offset();
    byte[] keyBytes = record.key();
    byte[] value = record.value();
    try {
      AlertEvent event = AlertEventJson.read(value);
      String key = keyBytes == null ? null : utf8(keyBytes);
      if (key == null) {
        return rejected(record, "key", "record has no key (the service name)");
      }
      if (!key.equals(event.service())) {
        return rejected(
            record,
            "key",
            "key '" + abbreviate(key) + "' does not match service '" + event.service() + "'");
      }
      Header idHeader = record.headers().lastHeader(AlertTopic.HEADER_EVENT_ID);
      if (idHeader != null
          && idHeader.value() != null
          && !event.eventId().toString().equals(utf8(idHeader.value()))) {
        return rejected(record, "header:id", "header id does not match eventId " + event.eventId());
      }
      return new Accepted(event, utf8(value), topic, partition, offset);
    } catch (InvalidAlertEventException e) {
      return rejected(record, e.field(), e.getMessage());
    } catch (CharacterCodingException e) {
      return rejected(record, "encoding", "key or value is not valid UTF-8");
    }
  }

  private static Rejected rejected(
      ConsumerRecord<byte[], byte[]> record, String field, String why) {
    return new Rejected(
        record.topic(),
        record.partition(),
        record.offset(),
        record.key(),
        record.value(),
        field,
        why);
  }

  private static String utf8(byte[] bytes) throws CharacterCodingException {
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(bytes))
        .toString();
  }

  private static String abbreviate(String text) {
    return text.length() <= 60 ? text : text.substring(0, 60) + "…";
  }
}
