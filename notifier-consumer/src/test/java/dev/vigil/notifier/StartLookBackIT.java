package dev.vigil.notifier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A consumer group without committed offsets starts at the look-back, not at the earliest record; a
 * notifier that was merely down resumes at its committed offsets, old record timestamps or not.
 */
@ExtendWith(VigilInfraExtension.class)
class StartLookBackIT {
  private static final long HOUR = Duration.ofHours(1).toMillis();

  @Test
  void newGroupSkipsRecordsOlderThanTheLookBackAndARestartLosesNothing(
      TestDatabase db, TestKafka kafka) throws Exception {
    try (TestStack stack =
            TestStack.withoutNotifier(db, kafka, Map.of("VIGIL_NOTIFIER_START_LOOKBACK", "1h"));
        KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
      long now = System.currentTimeMillis();
      // partitions 0 and 1 hold alerts from 2-3 hours ago; partition 2 is empty at first start
      AlertEvent old0 = produce(producer, stack.topic, 0, now - 3 * HOUR, "old-a");
      AlertEvent old1 = produce(producer, stack.topic, 1, now - 2 * HOUR, "old-b");
      AlertEvent old2 = produce(producer, stack.topic, 0, now - 2 * HOUR, "old-a");
      AlertEvent recent = produce(producer, stack.topic, 0, now - 60_000, "recent");

      stack.startNotifier();
      stack.awaitStatus(recent.eventId(), "DELIVERED");
      for (AlertEvent skipped : List.of(old0, old1, old2)) {
        assertThat(stack.status(skipped.eventId())).as("older than the look-back").isNull();
      }
      assertThat(metrics(stack)).contains("vigil_notifier_intake_lookback_skipped_total 3.0");

      // merely down: what arrives meanwhile is delivered, however old its timestamp says it is
      stack.stopNotifier();
      AlertEvent down2 = produce(producer, stack.topic, 2, now - 5 * HOUR, "late-c");
      AlertEvent down1 = produce(producer, stack.topic, 1, now - 5 * HOUR, "late-b");
      stack.startNotifier();
      stack.awaitStatus(down2.eventId(), "DELIVERED");
      stack.awaitStatus(down1.eventId(), "DELIVERED");
      assertThat(stack.status(old1.eventId())).isNull();
      assertThat(metrics(stack)).contains("vigil_notifier_intake_lookback_skipped_total 0.0");
      assertThat(stack.notifications).hasSize(3);
    }
  }

  @Test
  void expiredGroupOffsetsResumeAfterTheLastStoredRecordNotAtTheLookBack(
      TestDatabase db, TestKafka kafka) throws Exception {
    try (TestStack stack =
            TestStack.withoutNotifier(db, kafka, Map.of("VIGIL_NOTIFIER_START_LOOKBACK", "1h"));
        KafkaProducer<byte[], byte[]> producer = producer(kafka);
        Admin admin =
            Admin.create(
                Map.<String, Object>of(
                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      long now = System.currentTimeMillis();
      AlertEvent first = produce(producer, stack.topic, 0, now - 60_000, "alpha");
      stack.startNotifier();
      stack.awaitStatus(first.eventId(), "DELIVERED");

      // Every notifier down for longer than the broker keeps group offsets: alerts arrive
      // meanwhile (their timestamps older than the look-back by the time intake is back), and the
      // group's committed offsets are deleted, as offsets.retention.minutes does.
      stack.stopNotifier();
      AlertEvent whileDown1 = produce(producer, stack.topic, 0, now - 5 * HOUR, "alpha");
      AlertEvent whileDown2 = produce(producer, stack.topic, 0, now - 4 * HOUR, "beta");
      Set<TopicPartition> partitions = new HashSet<>();
      for (var info :
          admin
              .describeTopics(List.of(stack.topic))
              .allTopicNames()
              .get()
              .get(stack.topic)
              .partitions()) {
        partitions.add(new TopicPartition(stack.topic, info.partition()));
      }
      admin.deleteConsumerGroupOffsets(stack.group, partitions).all().get();
      assertThat(admin.listConsumerGroupOffsets(stack.group).partitionsToOffsetAndMetadata().get())
          .isEmpty();

      stack.startNotifier();
      stack.awaitStatus(whileDown1.eventId(), "DELIVERED");
      stack.awaitStatus(whileDown2.eventId(), "DELIVERED");
      assertThat(metrics(stack)).contains("vigil_notifier_intake_lookback_skipped_total 0.0");
      assertThat(stack.notifications)
          .extracting(n -> n.event().eventId())
          .as("each once; services are delivered independently, so in any order")
          .containsExactlyInAnyOrder(first.eventId(), whileDown1.eventId(), whileDown2.eventId());
    }
  }

  private static AlertEvent produce(
      KafkaProducer<byte[], byte[]> producer,
      String topic,
      int partition,
      long timestamp,
      String service)
      throws Exception {
    AlertEvent event = TestStack.failed(service);
    producer
        .send(
            new ProducerRecord<>(
                topic,
                partition,
                timestamp,
                service.getBytes(StandardCharsets.UTF_8),
                AlertEventJson.write(event).getBytes(StandardCharsets.UTF_8)))
        .get();
    return event;
  }

  private static KafkaProducer<byte[], byte[]> producer(TestKafka kafka) {
    return new KafkaProducer<>(
        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
        new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  private static String metrics(TestStack stack) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://localhost:" + stack.notifier.httpPort() + "/metrics"))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
