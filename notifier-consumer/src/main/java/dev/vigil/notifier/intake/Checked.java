package dev.vigil.notifier.intake;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertTopic;
import dev.vigil.contract.InvalidAlertEventException;
import dev.vigil.contract.UnknownAlertKindException;
import dev.vigil.kit.SafeText;
import dev.vigil.kit.tracing.TraceParent;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** One consumed record, classified as a valid receipt or a rejected (poison) record. */
sealed interface Checked {

  /**
   * A valid alert event. {@code payload} is the canonical JSON of the parsed event ({@link
   * AlertEventJson#write}), never the bytes as consumed: trailing bytes, unknown fields and odd
   * spacing do not reach the receiver, and two copies of one event compare equal as text.
   */
  record Accepted(
      AlertEvent event,
      String payload,
      String topic,
      int partition,
      long offset,
      byte[] key,
      byte[] value,
      String traceparent)
      implements Checked {

    /** An event whose record carried no (valid) trace context. */
    Accepted(
        AlertEvent event,
        String payload,
        String topic,
        int partition,
        long offset,
        byte[] key,
        byte[] value) {
      this(event, payload, topic, partition, offset, key, value, null);
    }
  }

  /**
   * Not a usable alert event: parked with the raw bytes (stored as {@code bytea}, whatever they
   * are) and a reason that is always safe to store and log (see {@link SafeText}).
   */
  record Rejected(
      String topic,
      int partition,
      long offset,
      byte[] key,
      byte[] value,
      String field,
      String reason)
      implements Checked {
    public Rejected {
      field = SafeText.text(field == null ? "value" : field, 100);
      reason = SafeText.text(reason == null ? "unreadable" : reason, SafeText.MAX_REASON);
    }
  }

  /**
   * A well-formed event of a kind this code does not know (added to the contract later): skipped,
   * neither delivered nor parked. {@code kind} is as received, at most 40 characters, sanitised.
   */
  record Skipped(String topic, int partition, long offset, String kind) implements Checked {
    public Skipped {
      kind = SafeText.text(kind, 60);
    }
  }

  /** Classifies {@code record}; never throws for bad input. */
  static Checked of(ConsumerRecord<byte[], byte[]> record) {
    try {
      return classify(record);
    } catch (UnknownAlertKindException e) {
      // Only a name a later contract could add (upper case, digits, _) is skipped; anything else
      // in kind (control characters, lower case, blanks) is a broken record and parked.
      if (!e.kind().matches("[A-Z][A-Z0-9_]{0,39}")) {
        return rejected(record, e.field(), e.getMessage());
      }
      return new Skipped(record.topic(), record.partition(), record.offset(), e.kind());
    } catch (InvalidAlertEventException e) {
      return rejected(record, e.field(), e.getMessage());
    } catch (RuntimeException e) {
      // Not expected for any input; parked rather than allowed to stop intake.
      return rejected(record, "value", "unreadable: " + e);
    }
  }

  private static Checked classify(ConsumerRecord<byte[], byte[]> record) {
    byte[] value = record.value();
    if (value == null) {
      return rejected(record, "value", "record has no value (tombstone)");
    }
    StrictJson.check(value);
    AlertEvent event = AlertEventJson.read(value);
    if (record.key() == null) {
      return rejected(record, "key", "record has no key (the service name)");
    }
    String key = utf8(record.key());
    if (key == null) {
      return rejected(record, "key", "key is not valid UTF-8");
    }
    if (!key.equals(event.service())) {
      return rejected(
          record,
          "key",
          "key '" + SafeText.text(key, 60) + "' does not match service '" + event.service() + "'");
    }
    Header idHeader = record.headers().lastHeader(AlertTopic.HEADER_EVENT_ID);
    if (idHeader != null && idHeader.value() != null) {
      String id = utf8(idHeader.value());
      if (!event.eventId().toString().equals(id)) {
        return rejected(record, "header:id", "header id does not match eventId " + event.eventId());
      }
    }
    return new Accepted(
        event,
        AlertEventJson.write(event),
        record.topic(),
        record.partition(),
        record.offset(),
        record.key(),
        value,
        traceparent(record));
  }

  /**
   * The record's {@code traceparent} header as a valid version-00 value, or null: a missing or
   * invalid one only means the deliveries start a trace of their own, never that the event is
   * parked.
   */
  private static String traceparent(ConsumerRecord<byte[], byte[]> record) {
    Header header = record.headers().lastHeader(AlertTopic.HEADER_TRACEPARENT);
    if (header == null || header.value() == null || header.value().length > 512) {
      return null;
    }
    return TraceParent.parse(utf8(header.value())).map(TraceParent::toString).orElse(null);
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

  /** Strict UTF-8 decoding; null when the bytes are not valid UTF-8. */
  static String utf8(byte[] bytes) {
    return dev.vigil.kit.json.StrictJson.utf8(bytes);
  }
}
