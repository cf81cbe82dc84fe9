package dev.vigil.notifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertTopic;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.receiver.ReceivedNotification;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Records a careless or hostile producer could put on the alert topic, produced with a plain Kafka
 * producer between valid events of several services: every valid event is delivered exactly once
 * and in its service's order, every hostile record is parked (with a readable reason) or recognised
 * as a duplicate, and intake never stops.
 */
@ExtendWith(VigilInfraExtension.class)
class HostileRecordsIT {
  private static final List<String> SERVICES = List.of("alpha", "beta", "gamma");
  private static final int MAX_BYTES = 8 * 1024 * 1024;

  /** What one produced record is expected to become. */
  private enum Expect {
    DELIVERED,
    PARKED,
    DUPLICATE,
    SKIPPED
  }

  private record Produced(String what, Expect expect, int partition, long offset, UUID eventId) {}

  @Test
  void hostileRecordsAreParkedOrDuplicatesAndEveryValidEventIsDeliveredOnceInOrder(
      TestDatabase db, TestKafka kafka) throws Exception {
    try (TestStack stack = TestStack.start(db, kafka, Map.of());
        KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
      allowLargeRecords(kafka, stack.topic);
      List<Produced> produced = new ArrayList<>();
      Map<String, List<UUID>> order = new LinkedHashMap<>();
      int[] turn = {0};
      Runnable valid =
          () -> {
            String service = SERVICES.get(turn[0]++ % SERVICES.size());
            AlertEvent event = TestStack.failed(service);
            produced.add(send(producer, stack.topic, "valid", Expect.DELIVERED, service, event));
            order.computeIfAbsent(service, s -> new ArrayList<>()).add(event.eventId());
          };
      AlertEvent template = TestStack.failed("alpha");
      String json = AlertEventJson.write(template);
      Map<String, Object[]> hostile = new LinkedHashMap<>();
      hostile.put("non-JSON", new Object[] {"alpha", bytes("this is not json")});
      hostile.put("JSON array", new Object[] {"alpha", bytes("[1,2,3]")});
      hostile.put("JSON string", new Object[] {"beta", bytes("\"FAILED\"")});
      hostile.put("object of the wrong shape", new Object[] {"beta", bytes("{\"hello\":1}")});
      hostile.put("NUL in key", new Object[] {"alpha\u0000", bytes(fresh(json))});
      hostile.put("escape sequence in key", new Object[] {"alpha\u001b[2J", bytes(fresh(json))});
      hostile.put(
          "NUL in service",
          new Object[] {"alpha", bytes(fresh(json).replace("\"alpha\"", "\"alpha\\u0000\""))});
      hostile.put(
          "control character in kind",
          new Object[] {"alpha", bytes(fresh(json).replace("\"FAILED\"", "\"FAILED\\u0007\""))});
      hostile.put(
          "NUL in eventId",
          new Object[] {"alpha", bytes(fresh(json).replaceFirst("\"eventId\":\"", "$0\\\\u0000"))});
      hostile.put(
          "raw NUL byte inside a string",
          new Object[] {
            "alpha", bytes(fresh(json).replace("connect timed out", "connect\u0000timed out"))
          });
      hostile.put(
          "lone surrogate escape",
          new Object[] {
            "alpha", bytes(fresh(json).replace("connect timed out", "connect \\ud800 out"))
          });
      hostile.put(
          "lone low surrogate escape in a field name",
          new Object[] {"alpha", bytes(fresh(json).replace("{", "{\"x\\udc00\":1,"))});
      hostile.put(
          "encoded surrogate bytes",
          new Object[] {"alpha", withBytes(fresh(json), 0xED, 0xA0, 0x80)});
      hostile.put("invalid UTF-8 byte", new Object[] {"beta", withBytes(fresh(json), 0xFF)});
      hostile.put("byte order mark", new Object[] {"alpha", bytes("\ufeff" + fresh(json))});
      hostile.put(
          "trailing garbage", new Object[] {"alpha", bytes(fresh(json) + "{\"evil\":true}")});
      hostile.put("trailing text", new Object[] {"alpha", bytes(fresh(json) + " and more")});
      hostile.put("empty value", new Object[] {"gamma", new byte[0]});
      hostile.put("tombstone", new Object[] {"gamma", null});
      hostile.put(
          "2 MB value",
          new Object[] {
            "alpha", bytes(fresh(json).replace("{", "{\"pad\":\"" + "x".repeat(2 << 20) + "\","))
          });
      hostile.put(
          "unknown schemaVersion",
          new Object[] {
            "alpha", bytes(fresh(json).replace("\"schemaVersion\":1", "\"schemaVersion\":99"))
          });
      hostile.put(
          "duplicate key",
          new Object[] {"alpha", bytes(fresh(json).replace("{", "{\"service\":\"beta\","))});
      hostile.put("no key", new Object[] {null, bytes(fresh(json))});

      for (Map.Entry<String, Object[]> entry : hostile.entrySet()) {
        valid.run();
        String key = (String) entry.getValue()[0];
        byte[] value = (byte[]) entry.getValue()[1];
        produced.add(send(producer, stack.topic, entry.getKey(), Expect.PARKED, key, value, null));
      }
      // A kind added to the contract later: skipped and noted at its position, never parked.
      valid.run();
      Produced unknownKind =
          send(
              producer,
              stack.topic,
              "unknown kind",
              Expect.SKIPPED,
              "alpha",
              bytes(fresh(json).replace("\"FAILED\"", "\"EXPLODED\"")),
              null);
      produced.add(unknownKind);
      // The reproduction: lastError with NUL is valid JSON (escaped); produced twice.
      AlertEvent nul =
          AlertEvent.failed(
              UUID.randomUUID(), UUID.randomUUID(), "beta", template.occurredAt(), 3, "a\u0000b");
      produced.add(send(producer, stack.topic, "NUL in lastError", Expect.DELIVERED, "beta", nul));
      order.get("beta").add(nul.eventId());
      valid.run();
      produced.add(send(producer, stack.topic, "same again", Expect.DUPLICATE, "beta", nul));
      // the same id with the same payload, and with a different one
      AlertEvent original = TestStack.failed("gamma");
      produced.add(send(producer, stack.topic, "original", Expect.DELIVERED, "gamma", original));
      order.get("gamma").add(original.eventId());
      valid.run();
      produced.add(
          send(
              producer,
              stack.topic,
              "same id, same payload",
              Expect.DUPLICATE,
              "gamma",
              bytes(AlertEventJson.write(original)),
              original.eventId()));
      AlertEvent impostor =
          AlertEvent.failed(
              original.eventId(),
              original.incidentId(),
              "gamma",
              original.occurredAt(),
              9,
              "another\u0000story");
      produced.add(
          send(
              producer,
              stack.topic,
              "same id, other payload",
              Expect.DUPLICATE,
              "gamma",
              impostor));
      valid.run();
      valid.run();

      List<Produced> delivered =
          produced.stream().filter(p -> p.expect() == Expect.DELIVERED).toList();
      List<Produced> parked = produced.stream().filter(p -> p.expect() == Expect.PARKED).toList();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> stack.notifications.size() >= delivered.size());
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> stack.count("select count(*) from notifier_rejected") >= parked.size());

      // every valid event exactly once, in its service's order
      for (Produced p : delivered) {
        // The receiver stores an event before it answers; DELIVERED is written after the answer.
        stack.awaitStatus(p.eventId(), "DELIVERED");
        assertThat(stack.requestsFor(p.eventId())).as(p.what()).hasSize(1);
      }
      assertThat(stack.notifications).hasSize(delivered.size());
      for (String service : SERVICES) {
        assertThat(
                stack.notifications.stream()
                    .map(ReceivedNotification::event)
                    .filter(e -> e.service().equals(service))
                    .map(AlertEvent::eventId)
                    .toList())
            .as("order of " + service)
            .isEqualTo(order.get(service));
      }
      // every hostile record parked at its own position, with a readable reason
      Set<String> parkedAt = new HashSet<>(positions(stack));
      for (Produced p : parked) {
        assertThat(parkedAt).as(p.what() + " parked").contains(p.partition() + ":" + p.offset());
      }
      assertThat(stack.count("select count(*) from notifier_rejected")).isEqualTo(parked.size());
      assertThat(
              stack.column(
                  "select kafka_partition || ':' || kafka_offset || ' ' || kind"
                      + " from notifier_skipped_kind"))
          .containsExactly(unknownKind.partition() + ":" + unknownKind.offset() + " EXPLODED");
      assertThat(
              stack.scalar(
                  "select reason from notifier_rejected where field = 'key'"
                      + " and reason like '%does not match%' and reason like '%u0000%'"))
          .contains("'alpha\\u0000'");
      assertThat(
              stack.count(
                  "select count(*) from notifier_rejected where octet_length(record_value) > 2000000"))
          .isEqualTo(1);
      // duplicates: no receipt, no request; the different payload is kept as a conflict
      assertThat(stack.count("select count(*) from notifier_receipt")).isEqualTo(delivered.size());
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> stack.count("select count(*) from notifier_conflict") == 1);
      assertThat(stack.scalar("select conflicting_payload from notifier_conflict"))
          .isEqualTo(AlertEventJson.write(impostor));
      assertThat(
              stack.scalar(
                  "select payload from notifier_receipt where event_id = '" + nul.eventId() + "'"))
          .isEqualTo(AlertEventJson.write(nul))
          .contains("a\\u0000b");
      // intake never stopped
      String metrics = get(stack, "/metrics");
      assertThat(metrics)
          .contains("vigil_notifier_intake_restarts_total 0.0")
          .contains("vigil_notifier_rejected_total " + parked.size() + ".0")
          .contains("vigil_notifier_duplicates_total 2.0")
          .contains("vigil_notifier_conflicts_total 1.0");
      assertThat(get(stack, "/health")).contains("\"intake\":{\"status\":\"UP\"");
    }
  }

  @Test
  void aRecordTheDatabaseRefusesIsParkedAndTheRestOfItsBatchFlows(TestDatabase db, TestKafka kafka)
      throws Exception {
    try (TestStack stack = TestStack.withoutNotifier(db, kafka, Map.of());
        KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
      // Valid for the contract, refused by the database: a stand-in for any data the checks let
      // through that PostgreSQL will not store.
      stack.startNotifier();
      stack.update(
          "alter table notifier_receipt add constraint refuse_doomed check (service <> 'doomed')");
      stack.stopNotifier();
      List<AlertEvent> good = new ArrayList<>();
      AlertEvent doomed = TestStack.failed("doomed");
      for (int i = 0; i < 6; i++) {
        AlertEvent event = TestStack.failed(SERVICES.get(i % SERVICES.size()));
        good.add(event);
        send(producer, stack.topic, "valid", Expect.DELIVERED, event.service(), event);
        if (i == 2) {
          send(producer, stack.topic, "doomed", Expect.PARKED, "doomed", doomed);
        }
      }
      stack.startNotifier(); // one poll batch holds all seven
      for (AlertEvent event : good) {
        stack.awaitStatus(event.eventId(), "DELIVERED");
      }
      assertThat(stack.scalar("select field || ' ' || reason from notifier_rejected"))
          .startsWith("database refused by the database (SQLSTATE 23514)");
      assertThat(stack.status(doomed.eventId())).isNull();
      assertThat(get(stack, "/health")).contains("\"intake\":{\"status\":\"UP\"");
    }
  }

  private static List<String> positions(TestStack stack) {
    return stack.column(
        "select kafka_partition || ':' || kafka_offset from notifier_rejected where kafka_topic = '"
            + stack.topic
            + "'");
  }

  private static KafkaProducer<byte[], byte[]> producer(TestKafka kafka) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
            MAX_BYTES,
            ProducerConfig.BUFFER_MEMORY_CONFIG,
            4L * MAX_BYTES),
        new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  private static void allowLargeRecords(TestKafka kafka, String topic) throws Exception {
    try (Admin admin = kafka.admin()) {
      admin
          .incrementalAlterConfigs(
              Map.of(
                  new ConfigResource(ConfigResource.Type.TOPIC, topic),
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry(
                              TopicConfig.MAX_MESSAGE_BYTES_CONFIG, String.valueOf(MAX_BYTES)),
                          AlterConfigOp.OpType.SET))))
          .all()
          .get();
    }
  }

  private static Produced send(
      KafkaProducer<byte[], byte[]> producer,
      String topic,
      String what,
      Expect expect,
      String key,
      AlertEvent event) {
    return send(
        producer, topic, what, expect, key, bytes(AlertEventJson.write(event)), event.eventId());
  }

  private static Produced send(
      KafkaProducer<byte[], byte[]> producer,
      String topic,
      String what,
      Expect expect,
      String key,
      byte[] value,
      UUID eventId) {
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(topic, key == null ? null : bytes(key), value);
    if (eventId != null) {
      record.headers().add(AlertTopic.HEADER_EVENT_ID, bytes(eventId.toString()));
    }
    try {
      RecordMetadata metadata = producer.send(record).get();
      return new Produced(what, expect, metadata.partition(), metadata.offset(), eventId);
    } catch (Exception e) {
      throw new AssertionError("producing " + what + " failed", e);
    }
  }

  /** The template's JSON with a new event id, so each hostile copy is a different event. */
  private static String fresh(String json) {
    try {
      var node =
          (com.fasterxml.jackson.databind.node.ObjectNode) AlertEventJson.mapper().readTree(json);
      node.put("eventId", UUID.randomUUID().toString());
      return AlertEventJson.mapper().writeValueAsString(node);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** {@code json} with {@code raw} bytes put into the lastError text. */
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

  private static String get(TestStack stack, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://localhost:" + stack.notifier.httpPort() + path))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
