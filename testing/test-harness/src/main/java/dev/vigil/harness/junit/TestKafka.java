package dev.vigil.harness.junit;

import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The shared Kafka broker as a test sees it: unique topic names, topic creation, stop and start.
 */
public interface TestKafka {
  String bootstrapServers();

  /** Stops the broker; data is kept and the address stays the same. */
  void stop();

  /** Starts the broker again and waits until it serves requests. */
  void start();

  /** A topic name no other test uses. */
  default String uniqueName(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** An admin client for this broker; the caller closes it. */
  default Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers(),
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            30_000));
  }

  /** Creates a topic with one replica and waits for it. */
  default void createTopic(String topic, int partitions) {
    try (Admin admin = admin()) {
      admin
          .createTopics(Set.of(new NewTopic(topic, partitions, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + topic, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot create topic " + topic, e);
    }
  }
}
