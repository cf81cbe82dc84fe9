package dev.vigil.relay.stream;

import static dev.vigil.relay.config.RelayConfig.OFFSETS_TOPIC;
import static dev.vigil.relay.config.RelayConfig.TOPIC_PARTITIONS;
import static dev.vigil.relay.config.RelayConfig.TOPIC_REPLICATION_FACTOR;

import dev.vigil.contract.OutboxContract;
import dev.vigil.relay.config.RelayConfig;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the alert topic with the configured partitions and replication factor if missing, with a
 * {@code max.message.bytes} that takes every record the outbox can produce; warns when an existing
 * topic takes less.
 */
final class TopicSetup {
  /**
   * Largest record the relay sends and the topic it creates accepts (256 KiB): four times the
   * outbox's payload limit ({@link OutboxContract#MAX_PAYLOAD_BYTES}, enforced by the table), so
   * the key (at most {@link OutboxContract#MAX_AGGREGATE_ID_BYTES}), the headers and the record
   * overhead always fit, and twice the producer's 128 KiB {@code batch.size}, so a full batch does
   * too. Used as the producer's {@code max.request.size} and the topic's {@code max.message.bytes}.
   */
  static final int MAX_RECORD_BYTES = 4 * OutboxContract.MAX_PAYLOAD_BYTES;

  static final String MAX_MESSAGE_BYTES = "max.message.bytes";

  private static final Logger LOG = LoggerFactory.getLogger(TopicSetup.class);

  private TopicSetup() {}

  static void ensure(RelayConfig config) throws InterruptedException {
    try (Admin admin = admin(config)) {
      if (admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(config.topic())) {
        checkMaxMessageBytes(admin, config.topic());
        return;
      }
      NewTopic topic =
          new NewTopic(
                  config.topic(),
                  config.get(TOPIC_PARTITIONS),
                  config.get(TOPIC_REPLICATION_FACTOR).shortValue())
              .configs(Map.of(MAX_MESSAGE_BYTES, String.valueOf(MAX_RECORD_BYTES)));
      admin.createTopics(Set.of(topic)).all().get(30, TimeUnit.SECONDS);
      LOG.info(
          "topic created topic={} partitions={} replicationFactor={} maxMessageBytes={}",
          config.topic(),
          config.get(TOPIC_PARTITIONS),
          config.get(TOPIC_REPLICATION_FACTOR),
          MAX_RECORD_BYTES);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create topic " + config.topic(), e.getCause());
      }
    } catch (TimeoutException e) {
      throw new IllegalStateException("Kafka did not answer while creating " + config.topic(), e);
    }
  }

  /**
   * Creates the compacted offsets topic of exactly-once delivery if missing: one partition (a
   * handful of keys, read whole at every start), the alert topic's replication factor.
   */
  static void ensureOffsetsTopic(RelayConfig config) throws InterruptedException {
    String name = config.get(OFFSETS_TOPIC);
    try (Admin admin = admin(config)) {
      if (admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(name)) {
        return;
      }
      NewTopic topic =
          new NewTopic(name, 1, config.get(TOPIC_REPLICATION_FACTOR).shortValue())
              .configs(
                  Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
      admin.createTopics(Set.of(topic)).all().get(30, TimeUnit.SECONDS);
      LOG.info(
          "offsets topic created topic={} replicationFactor={} cleanupPolicy=compact",
          name,
          config.get(TOPIC_REPLICATION_FACTOR));
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create topic " + name, e.getCause());
      }
    } catch (TimeoutException e) {
      throw new IllegalStateException("Kafka did not answer while creating " + name, e);
    }
  }

  private static Admin admin(RelayConfig config) {
    return Admin.create(
        config
            .kafkaClient()
            .on(
                Map.of(
                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafkaBootstrapServers(),
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000,
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000)));
  }

  /**
   * A topic created by someone else may take less than the outbox can hold; the relay would then
   * stop at the first such record (and say so in /health). Warn at start instead of at that record.
   */
  private static void checkMaxMessageBytes(Admin admin, String topic) throws InterruptedException {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    long allowed;
    try {
      Config topicConfig =
          admin.describeConfigs(Set.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
      ConfigEntry entry = topicConfig == null ? null : topicConfig.get(MAX_MESSAGE_BYTES);
      if (entry == null || entry.value() == null) {
        return;
      }
      allowed = Long.parseLong(entry.value());
    } catch (ExecutionException | TimeoutException | NumberFormatException e) {
      // Not being allowed to describe the topic must not stop the relay; the check is advisory.
      LOG.info("topic max.message.bytes not checked topic={} error={}", topic, e.toString());
      return;
    }
    if (allowed < MAX_RECORD_BYTES) {
      LOG.warn(
          "topic takes smaller records than the outbox allows topic={} maxMessageBytes={}"
              + " required={}; a larger record would stop the relay until the topic's"
              + " max.message.bytes is raised",
          topic,
          allowed,
          MAX_RECORD_BYTES);
    }
  }
}
