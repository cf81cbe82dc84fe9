package dev.vigil.notifier.intake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.db.Database;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The intake reads {@code read_committed}: a record of an aborted Kafka transaction (a relay killed
 * or fenced mid-batch) never becomes a receipt, the committed records around it do.
 */
@ExtendWith(VigilInfraExtension.class)
class ReadCommittedIntakeIT {

  @Test
  void recordOfAnAbortedTransactionNeverBecomesAReceipt(TestDatabase db, TestKafka kafka)
      throws Exception {
    String topic = kafka.uniqueName("alerts");
    kafka.createTopic(topic, 1);
    ReceiptConsumer.Options options =
        new ReceiptConsumer.Options(
            kafka.bootstrapServers(), topic, kafka.uniqueName("group"), Duration.ofHours(1));
    try (Database database =
            Database.open(
                new Database.Options(
                    db.jdbcUrl(),
                    db.user(),
                    db.password(),
                    4,
                    "test",
                    "classpath:db/notifier",
                    "flyway_notifier_history"));
        KafkaProducer<byte[], byte[]> producer = transactional(kafka);
        ReceiptConsumer intake =
            new ReceiptConsumer(database, options, new SimpleMeterRegistry(), () -> {})) {
      producer.initTransactions();
      intake.start();

      AlertEvent aborted = event();
      producer.beginTransaction();
      producer.send(record(topic, aborted)).get();
      producer.abortTransaction();
      AlertEvent committed = event();
      producer.beginTransaction();
      producer.send(record(topic, committed));
      producer.commitTransaction();

      // Same partition, later offset: once the committed one is a receipt, the aborted one was
      // passed over.
      await().atMost(Duration.ofSeconds(60)).until(() -> receipts(db, committed) == 1);
      assertThat(receipts(db, aborted)).as("receipts of the aborted record").isZero();
    }
  }

  private static AlertEvent event() {
    return AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "api", Instant.now(), 3, "503");
  }

  private static ProducerRecord<byte[], byte[]> record(String topic, AlertEvent event) {
    return new ProducerRecord<>(
        topic,
        event.service().getBytes(StandardCharsets.UTF_8),
        AlertEventJson.write(event).getBytes(StandardCharsets.UTF_8));
  }

  private static int receipts(TestDatabase db, AlertEvent event) throws Exception {
    try (Connection connection = db.connect();
        PreparedStatement statement =
            connection.prepareStatement(
                "select count(*) from notifier_receipt where event_id = ?")) {
      statement.setObject(1, event.eventId());
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getInt(1);
      }
    }
  }

  private static KafkaProducer<byte[], byte[]> transactional(TestKafka kafka) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ProducerConfig.TRANSACTIONAL_ID_CONFIG,
            kafka.uniqueName("tx")),
        new ByteArraySerializer(),
        new ByteArraySerializer());
  }
}
