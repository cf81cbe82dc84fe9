package dev.vigil.notifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VigilInfraExtension.class)
class IntakeIT {

  @Test
  void sameRecordConsumedTwiceGivesOneReceiptAndOneDelivery(TestDatabase db, TestKafka kafka)
      throws Exception {
    try (TestStack stack = TestStack.start(db, kafka, Map.of())) {
      AlertEvent down = TestStack.failed("inventory");
      stack.produce(down);
      stack.produce(down); // the relay repeated the tail of a batch
      stack.awaitStatus(down.eventId(), "DELIVERED");
      awaitCommittedToEnd(stack);

      // restart before commit: rewind the group so every record is consumed again
      stack.stopNotifier();
      try (Admin admin = kafka.admin()) {
        // offsets can only be altered with no member left; a consumer whose leave did not get
        // through stays a member until its 10 s session timeout
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> groupState(admin, stack.group) == GroupState.EMPTY);
        Map<TopicPartition, OffsetAndMetadata> rewind =
            partitions(admin, stack.topic).stream()
                .collect(Collectors.toMap(p -> p, p -> new OffsetAndMetadata(0)));
        admin.alterConsumerGroupOffsets(stack.group, rewind).all().get();
        assertThat(committed(admin, stack.group).values()).allMatch(offset -> offset == 0);
      }
      stack.startNotifier();
      awaitCommittedToEnd(stack);

      assertThat(stack.count("select count(*) from notifier_receipt")).isEqualTo(1);
      assertThat(stack.requestsFor(down.eventId())).hasSize(1);
      assertThat(stack.notifications).hasSize(1);
      assertThat(stack.count("select count(*) from notifier_conflict")).isZero();
    }
  }

  @Test
  void poisonRecordsAreParkedWhileGoodRecordsFlow(TestDatabase db, TestKafka kafka) {
    try (TestStack stack = TestStack.start(db, kafka, Map.of())) {
      AlertEvent first = TestStack.failed("orders");
      AlertEvent template = TestStack.failed("orders");
      stack.produce(first);
      produceRaw(stack, "orders", "this is not json");
      produceRaw(stack, "orders", json(template, node -> node.remove("eventId")));
      produceRaw(stack, "orders", json(template, node -> node.put("kind", "EXPLODED")));
      produceRaw(stack, "orders", json(template, node -> node.put("schemaVersion", 2)));
      produceRaw(stack, "orders", json(template, node -> node.put("padding", "x".repeat(70_000))));
      produceRaw(stack, "someone-else", json(template, node -> {}));
      stack.produce("orders", null, null);
      AlertEvent mislabelled = TestStack.failed("orders");
      stack.produce(
          "orders",
          AlertEventJson.write(mislabelled).getBytes(StandardCharsets.UTF_8),
          TestStack.failed("orders")); // headers of another event
      AlertEvent last = TestStack.recovered(first);
      stack.produce(last);

      stack.awaitStatus(last.eventId(), "DELIVERED");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> stack.count("select count(*) from notifier_rejected") == 7);
      assertThat(stack.column("select field from notifier_rejected"))
          .containsExactlyInAnyOrder(
              "value", "eventId", "schemaVersion", "value", "key", "value", "header:id");
      // a kind added to the contract later is skipped (noted, counted), neither parked nor sent
      assertThat(stack.column("select kind from notifier_skipped_kind"))
          .containsExactly("EXPLODED");
      assertThat(stack.column("select reason from notifier_rejected"))
          .anySatisfy(reason -> assertThat(reason).contains("not JSON"))
          .anySatisfy(reason -> assertThat(reason).contains("unknown schema version 2"))
          .anySatisfy(reason -> assertThat(reason).contains("bytes, more than"))
          .anySatisfy(reason -> assertThat(reason).contains("does not match service 'orders'"))
          .anySatisfy(reason -> assertThat(reason).contains("no value"));
      assertThat(
              stack.count(
                  "select count(*) from notifier_rejected where octet_length(record_value) > 65536"
                      + " and kafka_topic = '"
                      + stack.topic
                      + "'"))
          .isEqualTo(1);
      assertThat(stack.notifications)
          .extracting(n -> n.event().eventId())
          .containsExactly(first.eventId(), last.eventId());
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> metric(stack).contains("vigil_notifier_rejected_total 7.0"));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> metric(stack).contains("vigil_notifier_skipped_total{kind=\"EXPLODED\"} 1.0"));
    }
  }

  @Test
  void sameEventIdWithDifferentPayloadIsKeptAsConflictAndOriginalUntouched(
      TestDatabase db, TestKafka kafka) {
    try (TestStack stack = TestStack.start(db, kafka, Map.of())) {
      AlertEvent original = TestStack.failed("catalog");
      AlertEvent impostor =
          AlertEvent.failed(
              original.eventId(),
              original.incidentId(),
              "catalog",
              original.occurredAt(),
              7,
              "a different story");
      stack.produce(original);
      stack.awaitStatus(original.eventId(), "DELIVERED");
      stack.produce(impostor);
      stack.produce(impostor);

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> stack.count("select count(*) from notifier_conflict") == 1);
      assertThat(stack.scalar("select original_payload from notifier_conflict"))
          .isEqualTo(AlertEventJson.write(original));
      assertThat(stack.scalar("select conflicting_payload from notifier_conflict"))
          .isEqualTo(AlertEventJson.write(impostor));
      assertThat(stack.scalar("select payload from notifier_receipt"))
          .isEqualTo(AlertEventJson.write(original));
      assertThat(stack.requestsFor(original.eventId())).hasSize(1);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> metric(stack).contains("vigil_notifier_conflicts_total 1.0"));
    }
  }

  private static void produceRaw(TestStack stack, String key, String value) {
    stack.produce(key, value.getBytes(StandardCharsets.UTF_8), null);
  }

  private static String json(AlertEvent event, java.util.function.Consumer<ObjectNode> change) {
    try {
      ObjectNode node = (ObjectNode) AlertEventJson.mapper().readTree(AlertEventJson.write(event));
      node.put("eventId", UUID.randomUUID().toString());
      change.accept(node);
      return AlertEventJson.mapper().writeValueAsString(node);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static String metric(TestStack stack) throws Exception {
    return java.net.http.HttpClient.newHttpClient()
        .send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(
                        "http://localhost:" + stack.notifier.httpPort() + "/metrics"))
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static void awaitCommittedToEnd(TestStack stack) {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              try (Admin admin = stack.kafka.admin()) {
                Map<TopicPartition, Long> committed = committed(admin, stack.group);
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                    admin
                        .listOffsets(
                            partitions(admin, stack.topic).stream()
                                .collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest())))
                        .all()
                        .get();
                ends.forEach(
                    (partition, end) -> {
                      if (end.offset() > 0) {
                        assertThat(committed.get(partition)).isEqualTo(end.offset());
                      }
                    });
              }
            });
  }

  private static Map<TopicPartition, Long> committed(Admin admin, String group) throws Exception {
    return admin
        .listConsumerGroupOffsets(group)
        .partitionsToOffsetAndMetadata()
        .get()
        .entrySet()
        .stream()
        .filter(e -> e.getValue() != null)
        .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
  }

  private static GroupState groupState(Admin admin, String group) throws Exception {
    return admin
        .describeConsumerGroups(List.of(group))
        .describedGroups()
        .get(group)
        .get()
        .groupState();
  }

  private static List<TopicPartition> partitions(Admin admin, String topic) throws Exception {
    return admin
        .describeTopics(List.of(topic))
        .allTopicNames()
        .get()
        .get(topic)
        .partitions()
        .stream()
        .map(p -> new TopicPartition(topic, p.partition()))
        .toList();
  }
}
