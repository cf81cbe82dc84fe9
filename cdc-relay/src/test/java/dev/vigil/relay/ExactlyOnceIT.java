package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.relay.config.RelayConfig;
import dev.vigil.relay.ops.RelayStatus;
import dev.vigil.relay.stream.RelayFencedException;
import dev.vigil.relay.stream.SlotMissingException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Exactly-once delivery (the default): zombie fencing by transactional id, and the slot-safety
 * check with offsets kept in Kafka. Kills inside transactions: {@code BulkTransactionsIT} and
 * {@code FailoverIT}.
 */
@ExtendWith(VigilInfraExtension.class)
class ExactlyOnceIT {

  @Test
  void aNewerProducerOnTheSlotFencesTheRelayWhichStopsWithTheReasonOnHealth(
      TestDatabase db, TestKafka kafka) throws Exception {
    RelayFixture.migrateMonitor(db);
    RelayFixture.createSequenceTable(db);
    String topic = kafka.uniqueName("alerts");
    kafka.createTopic(topic, 4);
    String slot = RelayFixture.uniqueSlot("fence");
    RelayConfig config = RelayFixture.config(RelayFixture.env(db, kafka, slot, topic, "zombie"));
    Map<String, String> committed = new HashMap<>();

    try (Connection c = db.connect();
        TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic)) {
      try (RelayService zombie = RelayFixture.startStreaming(config)) {
        remember(committed, RelayFixture.insertNext(c, "fence-a"));
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Deliveries.ids(reader.poll(), "fence-").size() == 1);

        // What a second relay on the same slot does first when it starts (one that got past the
        // advisory lock, e.g. behind a transaction pooler): register the slot's transactional id.
        try (KafkaProducer<byte[], byte[]> newer = transactional(kafka, "vigil-relay-" + slot)) {
          newer.initTransactions();
          remember(committed, RelayFixture.insertNext(c, "fence-a"));

          await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> zombie.status().state() == RelayStatus.State.FAILING);
          assertThat(zombie.status().reason())
              .startsWith("fenced:")
              .contains("vigil-relay-" + slot);
          ExecutionException stopped =
              org.junit.jupiter.api.Assertions.assertThrows(
                  ExecutionException.class, () -> zombie.terminated().get());
          assertThat(stopped.getCause()).isInstanceOf(RelayFencedException.class);
          HttpResponse<String> health = health(zombie);
          assertThat(health.statusCode()).isEqualTo(503);
          assertThat(health.body()).contains("\"state\":\"failing\"", "fenced:");
          assertThat(RelayFixture.lockHolderPid(db, slot)).as("lock released").isZero();
          assertThat(Deliveries.ids(reader.poll(), "fence-"))
              .as("the zombie committed nothing after it was fenced")
              .hasSize(1);
        }
      }

      // A relay started on the slot again streams the row the zombie could not commit, once.
      try (RelayService next = RelayFixture.startStreaming(config)) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Deliveries.ids(reader.poll(), "fence-").size() == 2);
        remember(committed, RelayFixture.insertNext(c, "fence-a"));
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Deliveries.ids(reader.poll(), "fence-").size() == 3);
        assertThat(Deliveries.verify(reader.poll(), "fence-", committed))
            .as("duplicates read_committed")
            .isZero();
      }
    }
  }

  @Test
  void missingSlotWithOffsetsInKafkaRefusesToStartUntilTheOffsetsAreDeleted(
      TestDatabase db, TestKafka kafka) throws Exception {
    RelayFixture.migrateMonitor(db);
    RelayFixture.createSequenceTable(db);
    String topic = kafka.uniqueName("alerts");
    kafka.createTopic(topic, 4);
    String slot = RelayFixture.uniqueSlot("lostk");
    RelayConfig config = RelayFixture.config(RelayFixture.env(db, kafka, slot, topic, "lostk"));

    try (Connection c = db.connect();
        TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic)) {
      try (RelayService relay = RelayFixture.startStreaming(config)) {
        RelayFixture.insertNext(c, "lostk-before");
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> !Deliveries.ids(reader.poll(), "lostk-before").isEmpty());
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .until(
              () -> c.createStatement().execute("select pg_drop_replication_slot('" + slot + "')"));

      String reason;
      try (RelayService relay = RelayService.start(config)) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> relay.status().state() == RelayStatus.State.FAILING);
        reason = relay.status().reason();
        assertThat(reason)
            .contains("replication slot '" + slot + "' is missing")
            .contains("Kafka topic vigil.relay.offsets");
        ExecutionException refused =
            org.junit.jupiter.api.Assertions.assertThrows(
                ExecutionException.class, () -> relay.terminated().get());
        assertThat(refused.getCause()).isInstanceOf(SlotMissingException.class);
      }

      // The way out the message gives: a tombstone for the slot's offsets key.
      String key = reason.substring(reason.indexOf("echo '") + 6, reason.indexOf("#'"));
      try (KafkaProducer<byte[], byte[]> producer = plain(kafka)) {
        producer
            .send(
                new ProducerRecord<>(
                    "vigil.relay.offsets", key.getBytes(StandardCharsets.UTF_8), null))
            .get();
      }
      try (RelayService relay = RelayFixture.startStreaming(config)) {
        RelayFixture.insertNext(c, "lostk-after");
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> !Deliveries.ids(reader.poll(), "lostk-after").isEmpty());
      }
    }
  }

  private static void remember(Map<String, String> committed, AlertEvent event) {
    committed.put(event.eventId().toString(), event.service());
  }

  private static HttpResponse<String> health(RelayService relay) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + relay.httpPort() + "/health"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private static KafkaProducer<byte[], byte[]> transactional(TestKafka kafka, String id) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ProducerConfig.TRANSACTIONAL_ID_CONFIG,
            id),
        new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  private static KafkaProducer<byte[], byte[]> plain(TestKafka kafka) {
    return new KafkaProducer<>(
        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
        new ByteArraySerializer(),
        new ByteArraySerializer());
  }
}
