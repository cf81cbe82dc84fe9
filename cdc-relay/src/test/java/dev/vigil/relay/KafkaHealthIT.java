package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.relay.config.RelayConfig;
import dev.vigil.relay.ops.RelayStatus;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** /health tells the truth when Kafka does not take what the relay sends. */
@ExtendWith(VigilInfraExtension.class)
class KafkaHealthIT {

  /**
   * The broker stops while the relay streams, then a row comes. At-least-once: the producer has no
   * metadata of the topic yet, so send() itself waits for it (max.block.ms) and never reaches the
   * buffer; the relay retries it and the batch waits. Exactly-once: the producer fetched the
   * metadata at start and the record waits in its buffer, or (when the broker's shutdown took the
   * topic out of the producer's metadata) the send fails, the transaction is abandoned and the run
   * ends once the engine has stopped, which itself waits for Kafka. Either way health must say
   * FAILING within seconds, and the row arrives once the broker is back.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {RelayConfig.AT_LEAST_ONCE, RelayConfig.EXACTLY_ONCE})
  void aBatchWaitingForAStoppedBrokerShowsAsFailingWithinThirtySecondsAndArrivesAfter(
      String delivery, TestDatabase db, TestKafka kafka) throws Exception {
    RelayFixture.migrateMonitor(db);
    RelayFixture.createSequenceTable(db);
    String topic = kafka.uniqueName("alerts");
    Map<String, String> env =
        RelayFixture.env(db, kafka, RelayFixture.uniqueSlot("meta"), topic, "meta");
    env.put("VIGIL_RELAY_DELIVERY", delivery);
    RelayConfig config = RelayFixture.config(env);
    try (RelayService relay = RelayFixture.startStreaming(config);
        Connection c = db.connect()) {
      kafka.stop();
      AlertEvent event;
      try {
        event = RelayFixture.insertNext(c, "meta-1");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> relay.status().state() == RelayStatus.State.FAILING);
        assertThat(relay.status().reason()).contains("Kafka").contains("nothing is skipped");
        if (delivery.equals(RelayConfig.AT_LEAST_ONCE)) {
          assertThat(relay.status().reason())
              .contains("Kafka has not acknowledged the current batch")
              .contains("still retrying");
        }
        System.out.println(delivery + ", broker down: " + relay.status().reason());
      } finally {
        kafka.start();
      }
      try (TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic)) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> Deliveries.ids(reader.poll(), "meta-").contains(event.eventId().toString()));
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> relay.status().state() == RelayStatus.State.STREAMING);
    }
  }

  @Test
  void recordKafkaRefusesForGoodKeepsHealthFailingWithTheEventUntilTheTopicIsFixed(
      TestDatabase db, TestKafka kafka) throws Exception {
    RelayFixture.migrateMonitor(db);
    String topic = kafka.uniqueName("alerts");
    try (Admin admin = kafka.admin()) {
      // A topic created by someone else, taking less than the outbox allows.
      admin
          .createTopics(
              Set.of(
                  new NewTopic(topic, 1, (short) 1).configs(Map.of("max.message.bytes", "1024"))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    RelayConfig config =
        RelayFixture.config(
            RelayFixture.env(db, kafka, RelayFixture.uniqueSlot("refuse"), topic, "refuse"));
    try (RelayService relay = RelayFixture.startStreaming(config);
        Connection c = db.connect()) {
      UUID eventId = UUID.randomUUID();
      insertIncompressible(c, eventId, "refused-1", 6_000);

      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> relay.status().state() == RelayStatus.State.FAILING);
      // It stays failing, with the record and Kafka's reason, across the relay's restarts.
      await()
          .during(Duration.ofSeconds(8))
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  relay.status().state() == RelayStatus.State.FAILING
                      && String.valueOf(relay.status().reason()).contains(eventId.toString()));
      assertThat(relay.status().reason())
          .contains("Kafka refused a record for good")
          .contains("service=refused-1")
          .contains("RecordTooLargeException");
      System.out.println("refused for good: " + relay.status().reason());

      // What the operator does (README): give the topic the size the relay creates it with.
      try (Admin admin = kafka.admin()) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        admin
            .incrementalAlterConfigs(
                Map.of(
                    resource,
                    List.of(
                        new AlterConfigOp(
                            new ConfigEntry("max.message.bytes", "262144"),
                            AlterConfigOp.OpType.SET))))
            .all()
            .get(30, TimeUnit.SECONDS);
      }
      try (TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic)) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Deliveries.ids(reader.poll(), "refused-").contains(eventId.toString()));
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> relay.status().state() == RelayStatus.State.STREAMING);
    }
  }

  /** An outbox row (well below the outbox's limit) that compression cannot shrink much. */
  private static void insertIncompressible(Connection c, UUID id, String service, int bytes)
      throws Exception {
    byte[] random = new byte[bytes];
    new SecureRandom().nextBytes(random);
    String pad = Base64.getEncoder().encodeToString(random);
    try (PreparedStatement s =
        c.prepareStatement(
            """
            insert into outbox (id, aggregatetype, aggregateid, type, payload, incident_id,
                                schema_version)
            values (?, 'service', ?, 'FAILED', jsonb_build_object('pad', ?::text), ?, 1)
            """)) {
      s.setObject(1, id);
      s.setString(2, service);
      s.setString(3, pad);
      s.setObject(4, UUID.randomUUID());
      s.executeUpdate();
    }
  }
}
