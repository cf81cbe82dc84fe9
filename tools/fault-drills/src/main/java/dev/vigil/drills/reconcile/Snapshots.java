package dev.vigil.drills.reconcile;

import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertTopic;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads the full state of each stage for reconciliation. */
public final class Snapshots {
  private Snapshots() {}

  /** Every id in the outbox table. */
  public static Set<UUID> outboxIds(Connection vigilDb) throws SQLException {
    Set<UUID> ids = new HashSet<>();
    try (Statement statement = vigilDb.createStatement();
        ResultSet rows = statement.executeQuery("select id from outbox")) {
      while (rows.next()) {
        ids.add(rows.getObject(1, UUID.class));
      }
    }
    return ids;
  }

  /** Status of every notifier receipt, by event id. */
  public static Map<UUID, String> receipts(Connection vigilDb) throws SQLException {
    Map<UUID, String> receipts = new HashMap<>();
    try (Statement statement = vigilDb.createStatement();
        ResultSet rows = statement.executeQuery("select event_id, status from notifier_receipt")) {
      while (rows.next()) {
        receipts.put(rows.getObject(1, UUID.class), rows.getString(2));
      }
    }
    return receipts;
  }

  /** Every notification the reference receiver stored, in store order. */
  public static List<Observed> receiverStore(Connection receiverDb) throws SQLException {
    return receiverRowsAfter(receiverDb, 0);
  }

  /** Receiver rows with a store sequence above {@code afterSeq}, in store order. */
  static List<Observed> receiverRowsAfter(Connection receiverDb, long afterSeq)
      throws SQLException {
    List<Observed> stored = new ArrayList<>();
    try (var query =
        receiverDb.prepareStatement(
            "select event_id, service, seq from received_webhook where seq > ? order by seq")) {
      query.setLong(1, afterSeq);
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          stored.add(
              new Observed(rows.getObject(1, UUID.class), rows.getString(2), 0, rows.getLong(3)));
        }
      }
    }
    return stored;
  }

  /**
   * Reads the whole topic from the beginning to the current end of every partition, read_committed.
   */
  public static List<Observed> topic(String bootstrapServers, String topic) {
    return topic(bootstrapServers, topic, "read_committed");
  }

  /** The same with the given {@code isolation.level} (read_committed or read_uncommitted). */
  public static List<Observed> topic(String bootstrapServers, String topic, String isolation) {
    List<Observed> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = consumer(bootstrapServers, isolation)) {
      List<TopicPartition> partitions = partitions(consumer, topic);
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      while (!reachedEnd(consumer, end)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not read topic " + topic + " to its end");
        }
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          Observed observed = observed(record);
          if (observed != null) {
            records.add(observed);
          }
        }
      }
    }
    return records;
  }

  static KafkaConsumer<String, byte[]> consumer(String bootstrapServers) {
    return consumer(bootstrapServers, "read_committed");
  }

  static KafkaConsumer<String, byte[]> consumer(String bootstrapServers, String isolation) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    return new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
  }

  static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic) {
    List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
    if (infos == null || infos.isEmpty()) {
      throw new IllegalStateException("topic " + topic + " does not exist");
    }
    return infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
  }

  private static boolean reachedEnd(
      KafkaConsumer<String, byte[]> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> entry : end.entrySet()) {
      if (consumer.position(entry.getKey()) < entry.getValue()) {
        return false;
      }
    }
    return true;
  }

  /**
   * The event id from the {@code id} header, or from the payload when the header is missing; null
   * for a record that is not a readable event (the hostile-records drill puts such records on the
   * topic).
   */
  static Observed observed(ConsumerRecord<String, byte[]> record) {
    Header header = record.headers().lastHeader(AlertTopic.HEADER_EVENT_ID);
    UUID id;
    try {
      if (header != null && header.value() != null) {
        id = UUID.fromString(new String(header.value(), StandardCharsets.UTF_8).replace("\"", ""));
      } else {
        id = AlertEventJson.read(record.value()).eventId();
      }
    } catch (IllegalArgumentException notAnEvent) {
      return null;
    }
    return new Observed(id, record.key(), record.partition(), record.offset());
  }
}
