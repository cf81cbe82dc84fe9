package dev.vigil.relay.stream;

import static dev.vigil.relay.config.RelayConfig.TOPIC_PARTITIONS;
import static dev.vigil.relay.config.RelayConfig.TOPIC_REPLICATION_FACTOR;

import dev.vigil.relay.config.RelayConfig;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Creates the alert topic with the configured partitions and replication factor if missing. */
final class TopicSetup {
  private static final Logger log = LoggerFactory.getLogger(TopicSetup.class);

  private TopicSetup() {}

  static void ensure(RelayConfig config) throws InterruptedException {
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafkaBootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000))) {
      if (admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(config.topic())) {
        return;
      }
      NewTopic topic =
          new NewTopic(
              config.topic(),
              config.get(TOPIC_PARTITIONS),
              config.get(TOPIC_REPLICATION_FACTOR).shortValue());
      admin.createTopics(Set.of(topic)).all().get(30, TimeUnit.SECONDS);
      log.info(
          "topic created topic={} partitions={} replicationFactor={}",
          config.topic(),
          config.get(TOPIC_PARTITIONS),
          config.get(TOPIC_REPLICATION_FACTOR));
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create topic " + config.topic(), e.getCause());
      }
    } catch (TimeoutException e) {
      throw new IllegalStateException("Kafka did not answer while creating " + config.topic(), e);
    }
  }
}
