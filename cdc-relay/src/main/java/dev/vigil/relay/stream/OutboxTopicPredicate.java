package dev.vigil.relay.stream;

import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.transforms.predicates.Predicate;

/**
 * Whether a record comes from the outbox table: its topic equals the configured one. The engine
 * tests every record it streams (change events, transaction BEGIN/END, heartbeats) before the
 * Outbox EventRouter; an equality check costs a fraction of Kafka Connect's {@code
 * TopicNameMatches}, which runs a regular expression per record, and decides the same for the
 * literal topic name the relay configures.
 *
 * <p>Public with a no-argument constructor because the engine creates it by class name.
 */
public final class OutboxTopicPredicate<R extends ConnectRecord<R>> implements Predicate<R> {
  /** The one topic that matches. */
  public static final String TOPIC = "topic";

  private static final ConfigDef CONFIG =
      new ConfigDef()
          .define(
              TOPIC,
              ConfigDef.Type.STRING,
              ConfigDef.NO_DEFAULT_VALUE,
              new ConfigDef.NonEmptyString(),
              ConfigDef.Importance.HIGH,
              "The topic (as the connector names it) whose records match.");

  private String topic;

  @Override
  public ConfigDef config() {
    return CONFIG;
  }

  @Override
  public void configure(Map<String, ?> configs) {
    topic = (String) CONFIG.parse(configs).get(TOPIC);
  }

  @Override
  public boolean test(R record) {
    return record != null && topic.equals(record.topic());
  }

  @Override
  public void close() {}

  @Override
  public String toString() {
    return "OutboxTopicPredicate{topic=" + topic + "}";
  }
}
