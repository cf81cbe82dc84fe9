package dev.vigil.harness.junit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

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

  /**
   * Every record of {@code topic} a {@code read_committed} consumer sees, from the beginning up to
   * the end offsets listed now: all partitions, in offset order within each.
   *
   * @throws IllegalStateException if the topic is not read to those offsets within 60 s
   */
  default List<ConsumerRecord<byte[], byte[]>> readCommitted(String topic) {
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
              .map(info -> new TopicPartition(topic, info.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!end.entrySet().stream()
          .allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("topic " + topic + " not read to " + end + " in 60 s");
        }
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
      return records;
    }
  }
}
