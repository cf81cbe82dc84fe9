package dev.vigil.drills.hostile;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertTopic;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produces hostile records onto the alert topic with a plain Kafka producer, keyed like the relay's
 * records so they land between them, and checks what the notifier made of each.
 */
public final class HostileRecords implements AutoCloseable {
  /** What the notifier must make of a record. */
  public enum Expect {
    /** A row in {@code notifier_rejected} at the record's partition and offset. */
    PARKED,
    /** The same event id and payload as a receipt: nothing new, no second delivery. */
    DUPLICATE,
    /** The same event id, another payload: a row in {@code notifier_conflict}. */
    CONFLICT,
    /**
     * A well-formed event of a kind the notifier does not know: skipped (the contract says
     * consumers skip such kinds), noted in {@code notifier_skipped_kind} at its position, never
     * parked.
     */
    SKIPPED
  }

  /** One record as produced. */
  public record Sent(String what, Expect expect, int partition, long offset, UUID eventId) {}

  private static final String UNKNOWN_KIND = "unknown kind";

  /** Above the notifier's 64 KiB contract limit, below the broker's default 1 MB. */
  private static final int OVERSIZE = 200 * 1024;

  private final KafkaProducer<byte[], byte[]> producer;
  private final String topic;

  public HostileRecords(String bootstrapServers, String topic) {
    this.topic = topic;
    this.producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ProducerConfig.ACKS_CONFIG,
                "all"),
            new ByteArraySerializer(),
            new ByteArraySerializer());
  }

  /**
   * Produces one set: every kind of hostile record, keyed by {@code services} in turn, plus the
   * event {@code victim} (its canonical payload as the notifier stored it) again, once unchanged
   * and once with another payload.
   */
  public List<Sent> produce(
      List<String> services, UUID victim, String victimService, String victimPayload) {
    List<Sent> sent = new ArrayList<>();
    int turn = 0;
    for (Map.Entry<String, Object[]> entry : set(services.getFirst()).entrySet()) {
      String key = (String) entry.getValue()[0];
      if (key != null && key.equals("*")) {
        key = services.get(turn++ % services.size());
      }
      Expect expect = entry.getKey().equals(UNKNOWN_KIND) ? Expect.SKIPPED : Expect.PARKED;
      sent.add(send(entry.getKey(), expect, key, (byte[]) entry.getValue()[1], null));
    }
    sent.add(
        send(
            "same id, same payload",
            Expect.DUPLICATE,
            victimService,
            bytes(victimPayload),
            victim));
    sent.add(
        send(
            "same id, other payload",
            Expect.CONFLICT,
            victimService,
            bytes(with(victimPayload, "lastError", "a different story\u0000")),
            victim));
    producer.flush();
    return sent;
  }

  /** The hostile records by name: key ("*" = a workload service) and value. */
  private static Map<String, Object[]> set(String service) {
    String json =
        AlertEventJson.write(
            AlertEvent.failed(
                UUID.randomUUID(),
                UUID.randomUUID(),
                service,
                Instant.now(),
                3,
                "connect timed out"));
    Map<String, Object[]> set = new LinkedHashMap<>();
    set.put("non-JSON", new Object[] {"*", bytes("this is not json")});
    set.put("JSON array", new Object[] {"*", bytes("[1,2,3]")});
    set.put("object of the wrong shape", new Object[] {"*", bytes("{\"hello\":1}")});
    set.put("NUL in key", new Object[] {service + "\u0000", bytes(fresh(json))});
    set.put("escape sequence in key", new Object[] {service + "\u001b[2J", bytes(fresh(json))});
    set.put(
        "NUL in service",
        new Object[] {service, bytes(with(fresh(json), "service", service + "\u0000"))});
    set.put(
        "control character in kind",
        new Object[] {service, bytes(with(fresh(json), "kind", "FAILED\u0007"))});
    set.put(
        "raw NUL byte in a string",
        new Object[] {
          service, bytes(fresh(json).replace("connect timed out", "connect\u0000out"))
        });
    set.put(
        "lone surrogate escape",
        new Object[] {service, bytes(fresh(json).replace("connect timed out", "a \\ud800 b"))});
    set.put(
        "encoded surrogate bytes",
        new Object[] {service, withBytes(fresh(json), 0xED, 0xA0, 0x80)});
    set.put("invalid UTF-8 byte", new Object[] {service, withBytes(fresh(json), 0xFF)});
    set.put("byte order mark", new Object[] {service, bytes("\ufeff" + fresh(json))});
    set.put("trailing garbage", new Object[] {service, bytes(fresh(json) + "{\"evil\":true}")});
    set.put("empty value", new Object[] {"*", new byte[0]});
    set.put("tombstone", new Object[] {"*", null});
    set.put(
        "oversize value",
        new Object[] {service, bytes(with(fresh(json), "pad", "x".repeat(OVERSIZE)))});
    set.put(UNKNOWN_KIND, new Object[] {service, bytes(with(fresh(json), "kind", "EXPLODED"))});
    set.put(
        "unknown schemaVersion",
        new Object[] {
          service, bytes(fresh(json).replace("\"schemaVersion\":1", "\"schemaVersion\":99"))
        });
    set.put("no key", new Object[] {null, bytes(fresh(json))});
    return set;
  }

  /**
   * The records of {@code sent} the notifier has not (yet) accounted for: not parked at their
   * position, or for duplicates not a single receipt (and for conflicts no conflict row).
   */
  public List<String> unaccounted(Connection vigilDb, List<Sent> sent) throws SQLException {
    List<String> missing = new ArrayList<>();
    for (Sent s : sent) {
      boolean ok =
          switch (s.expect()) {
            case PARKED ->
                count(
                        vigilDb,
                        "select count(*) from notifier_rejected where kafka_topic = ?"
                            + " and kafka_partition = ? and kafka_offset = ?",
                        s)
                    == 1;
            case DUPLICATE ->
                count(vigilDb, "select count(*) from notifier_receipt where event_id = ?", s) == 1
                    && count(
                            vigilDb,
                            "select count(*) from notifier_rejected where kafka_topic = ?"
                                + " and kafka_partition = ? and kafka_offset = ?",
                            s)
                        == 0;
            case SKIPPED ->
                count(
                            vigilDb,
                            "select count(*) from notifier_skipped_kind where kafka_topic = ?"
                                + " and kafka_partition = ? and kafka_offset = ?",
                            s)
                        == 1
                    && count(
                            vigilDb,
                            "select count(*) from notifier_rejected where kafka_topic = ?"
                                + " and kafka_partition = ? and kafka_offset = ?",
                            s)
                        == 0;
            case CONFLICT ->
                count(
                        vigilDb,
                        "select count(*) from notifier_conflict where event_id = ?"
                            + " and kafka_topic = ? and kafka_partition = ? and kafka_offset = ?",
                        s)
                    == 1;
          };
      if (!ok) {
        missing.add(s.what() + "@" + s.partition() + ":" + s.offset());
      }
    }
    return missing;
  }

  private long count(Connection connection, String sql, Sent s) throws SQLException {
    try (PreparedStatement query = connection.prepareStatement(sql)) {
      int i = 1;
      if (sql.contains("event_id = ?")) {
        query.setObject(i++, s.eventId());
      }
      if (sql.contains("kafka_topic = ?")) {
        query.setString(i++, topic);
        query.setInt(i++, s.partition());
        query.setLong(i, s.offset());
      }
      try (ResultSet rows = query.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }

  private Sent send(String what, Expect expect, String key, byte[] value, UUID eventId) {
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(topic, key == null ? null : bytes(key), value);
    if (eventId != null) {
      record.headers().add(AlertTopic.HEADER_EVENT_ID, bytes(eventId.toString()));
    }
    try {
      RecordMetadata metadata = producer.send(record).get();
      return new Sent(what, expect, metadata.partition(), metadata.offset(), eventId);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted producing " + what, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("producing " + what + " failed", e.getCause());
    }
  }

  /** {@code json} with a new event id, so each hostile copy is an event of its own. */
  private static String fresh(String json) {
    return with(json, "eventId", UUID.randomUUID().toString());
  }

  private static String with(String json, String field, String value) {
    try {
      ObjectNode node = (ObjectNode) AlertEventJson.mapper().readTree(json);
      node.put(field, value);
      return AlertEventJson.mapper().writeValueAsString(node);
    } catch (Exception e) {
      throw new IllegalStateException("cannot edit " + field, e);
    }
  }

  /** {@code json} with raw bytes inside its lastError text. */
  private static byte[] withBytes(String json, int... raw) {
    String[] halves = json.split("connect timed out", 2);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(bytes(halves[0] + "connect "));
    for (int b : raw) {
      out.write(b);
    }
    out.writeBytes(bytes(" out" + halves[1]));
    return out.toByteArray();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    producer.close();
  }
}
