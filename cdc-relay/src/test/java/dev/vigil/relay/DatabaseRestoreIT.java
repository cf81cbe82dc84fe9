package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.EmbeddedPostgresServer;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The database is restored from a copy of its data folder (a volume snapshot that keeps {@code
 * pg_replslot}) while the offsets in Kafka (exactly-once) stay where the relay left them, ahead of
 * the restored server. Without a check the relay would resume from there and skip every outbox row
 * committed below it; it refuses to start instead (exit code 3), and after the documented way out
 * (a tombstone of the stored offsets) it relays the new rows.
 */
@ExtendWith(VigilInfraExtension.class)
class DatabaseRestoreIT {
  private static final String PREFIX = "restore-";

  @Test
  void aRestoredDatabaseBehindTheStoredOffsetsIsRefusedInsteadOfSkippingNewRows(TestKafka kafka)
      throws Exception {
    Path dir = Path.of("target", "pg-restore-" + UUID.randomUUID().toString().substring(0, 8));
    String slot = RelayFixture.uniqueSlot("restore");
    String topic = kafka.uniqueName("alerts");
    String offsetsTopic = kafka.uniqueName("offsets");
    kafka.createTopic(topic, 4);
    EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir, 0, false);
    try (TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic)) {
      pg.createDatabase("vigil");
      TestDatabase db =
          new TestDatabase("localhost", pg.port(), "vigil", EmbeddedPostgresServer.USER, "");
      RelayFixture.migrateMonitor(db);
      RelayFixture.createSequenceTable(db);
      Map<String, String> env = RelayFixture.env(db, kafka, slot, topic, "restore");
      env.put("VIGIL_RELAY_OFFSETS_TOPIC", offsetsTopic);

      // The slot and offsets exist when the copy is taken.
      relayRows(env, db, reader, "before-copy", 20);
      pg.stop();
      Path copy = dir.resolve("copy");
      pg.copyDataTo(copy);
      pg.start();

      // Relayed after the copy: the offsets in Kafka move far beyond the copy's WAL.
      relayRows(env, db, reader, "after-copy", 1_000);
      pg.stop();
      pg.restoreDataFrom(copy);
      pg.start();

      try (RelayProcess relay = RelayProcess.start(env, "restored")) {
        int exit = relay.awaitExit(Duration.ofSeconds(120));
        String log = Files.readString(relay.log());
        assertThat(exit).as("exit code; log: %s", relay.log()).isEqualTo(3);
        assertThat(log)
            .contains("is ahead of the server's current WAL position")
            .contains("confirmed_flush_lsn=")
            .contains("kcat -P");
      }

      // New rows after the restore, then the way out: tombstone the stored offsets.
      List<String> fresh = write(db, "after-restore", 200);
      tombstone(kafka, offsetsTopic, slot);
      try (RelayProcess relay = RelayProcess.start(env, "after-tombstone")) {
        await("the rows written after the restore arrive")
            .atMost(Duration.ofSeconds(120))
            .until(() -> Deliveries.ids(reader.poll(), PREFIX).containsAll(fresh));
        assertThat(relay.terminate()).isZero();
      }
    } finally {
      pg.stop();
    }
  }

  private static void relayRows(
      Map<String, String> env, TestDatabase db, TopicReader reader, String service, int rows)
      throws Exception {
    try (RelayService relay = RelayFixture.startStreaming(RelayFixture.config(env))) {
      List<String> ids = write(db, service, rows);
      await()
          .atMost(Duration.ofSeconds(120))
          .until(() -> Deliveries.ids(reader.poll(), PREFIX).containsAll(ids));
    }
  }

  /** {@code rows} outbox rows in transactions of ten, for services {@code restore-<name>-n}. */
  private static List<String> write(TestDatabase db, String name, int rows) throws Exception {
    List<String> ids = new ArrayList<>();
    try (Connection c = db.connect()) {
      for (int i = 0; i < rows; i += 10) {
        List<String> services = new ArrayList<>();
        for (int s = 0; s < Math.min(10, rows - i); s++) {
          services.add(PREFIX + name + "-" + s);
        }
        for (AlertEvent e : RelayFixture.insertNextBatch(c, services)) {
          ids.add(e.eventId().toString());
        }
      }
    }
    return ids;
  }

  /** What the refusal message tells the operator to do, done with a Kafka producer. */
  private static void tombstone(TestKafka kafka, String offsetsTopic, String slot)
      throws Exception {
    byte[] key =
        ("[\"vigil-relay-" + slot + "\",{\"server\":\"vigil_relay\"}]")
            .getBytes(StandardCharsets.UTF_8);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      producer.send(new ProducerRecord<>(offsetsTopic, key, null)).get(30, TimeUnit.SECONDS);
    }
  }
}
