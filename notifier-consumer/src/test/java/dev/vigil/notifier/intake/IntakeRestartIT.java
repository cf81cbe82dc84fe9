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
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The intake thread survives anything its Kafka consumer throws. */
@ExtendWith(VigilInfraExtension.class)
class IntakeRestartIT {

  @Test
  void pollThrowingRestartsIntakeAndHealthSaysWhyMeanwhile(TestDatabase db, TestKafka kafka)
      throws Exception {
    String topic = kafka.uniqueName("alerts");
    kafka.createTopic(topic, 1);
    List<Consumer<byte[], byte[]>> created = new CopyOnWriteArrayList<>();
    AtomicBoolean refuse = new AtomicBoolean();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ReceiptConsumer.Options options =
        new ReceiptConsumer.Options(
            kafka.bootstrapServers(), topic, kafka.uniqueName("group"), Duration.ofHours(1));
    try (Database database = open(db);
        KafkaProducer<byte[], byte[]> producer = producer(kafka);
        ReceiptConsumer intake =
            new ReceiptConsumer(
                database,
                options,
                () -> {
                  if (refuse.get()) {
                    throw new GroupAuthorizationException("not authorized to join the group");
                  }
                  Consumer<byte[], byte[]> consumer =
                      new KafkaConsumer<>(
                          options.consumerProperties(),
                          new ByteArrayDeserializer(),
                          explodingOn("boom"));
                  created.add(consumer);
                  return consumer;
                },
                registry,
                () -> {})) {
      intake.start();
      AlertEvent first = produce(producer, topic);
      awaitReceipt(db, first);

      // poll() throws: the consumer is woken up from outside, then cannot be created for a while
      refuse.set(true);
      created.getFirst().wakeup();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> intake.problem() != null && intake.problem().contains("not authorized"));
      assertThat(intake.healthy()).isFalse();
      assertThat(intake.state().cause()).isEqualTo(IntakeState.Cause.KAFKA);
      assertThat(registry.get("vigil.notifier.intake.down").tag("cause", "kafka").gauge().value())
          .isEqualTo(1.0);
      AlertEvent whileDown = produce(producer, topic);

      refuse.set(false);
      awaitReceipt(db, whileDown);
      await().atMost(Duration.ofSeconds(30)).until(intake::healthy);
      assertThat(intake.problem()).isNull();
      assertThat(created).hasSizeGreaterThanOrEqualTo(2);
      assertThat(registry.get("vigil.notifier.intake.restarts").counter().count())
          .isGreaterThanOrEqualTo(2);

      // a record the consumer cannot hand over is parked and skipped, not retried for ever
      producer.send(new ProducerRecord<>(topic, bytes("api"), bytes("boom"))).get();
      AlertEvent after = produce(producer, topic);
      awaitReceipt(db, after);
      assertThat(scalar(db, "select field || ' ' || reason from notifier_rejected"))
          .startsWith("record could not be read from Kafka");
      assertThat(intake.healthy()).isTrue();
    }
  }

  @Test
  void noBrokerAnsweringIsIntakeDownAndAnIdleGroupMemberIsNot(TestDatabase db, TestKafka kafka)
      throws Exception {
    Duration bound = Duration.ofSeconds(2);
    // A port nothing listens on: poll() does not fail, it returns nothing for ever.
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    ReceiptConsumer.Options nowhere =
        new ReceiptConsumer.Options(
            "127.0.0.1:" + closed, "alerts", kafka.uniqueName("group"), Duration.ofHours(1));
    // Two members of one group on a one-partition topic: one of them owns nothing and idles.
    String topic = kafka.uniqueName("alerts");
    kafka.createTopic(topic, 1);
    String group = kafka.uniqueName("group");
    ReceiptConsumer.Options reachable =
        new ReceiptConsumer.Options(kafka.bootstrapServers(), topic, group, Duration.ofHours(1));
    try (Database database = open(db);
        ReceiptConsumer lost = intake(database, nowhere, bound);
        ReceiptConsumer first = intake(database, reachable, bound);
        ReceiptConsumer second = intake(database, reachable, bound)) {
      lost.start();
      first.start();
      second.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> lost.problem() != null);
      assertThat(lost.healthy()).isFalse();
      assertThat(lost.problem()).startsWith("KAFKA: no connection to any Kafka broker for ");

      // Three bounds later, with nothing to read, both members of the reachable group are in touch.
      Thread.sleep(3 * bound.toMillis());
      assertThat(first.problem()).isNull();
      assertThat(second.problem()).isNull();
      assertThat(lost.healthy()).isFalse();
    }
  }

  private static ReceiptConsumer intake(
      Database database, ReceiptConsumer.Options options, Duration bound) {
    return new ReceiptConsumer(
        database,
        options,
        ReceiptConsumer.kafkaConsumers(options),
        new SimpleMeterRegistry(),
        () -> {},
        bound);
  }

  private static Deserializer<byte[]> explodingOn(String poison) {
    return (topic, data) -> {
      if (data != null && new String(data, StandardCharsets.UTF_8).equals(poison)) {
        throw new IllegalStateException("cannot deserialize " + poison);
      }
      return data;
    };
  }

  private static AlertEvent produce(KafkaProducer<byte[], byte[]> producer, String topic)
      throws Exception {
    AlertEvent event =
        AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "api", Instant.now(), 3, "503");
    producer
        .send(
            new ProducerRecord<>(topic, bytes(event.service()), bytes(AlertEventJson.write(event))))
        .get();
    return event;
  }

  private static void awaitReceipt(TestDatabase db, AlertEvent event) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                "1"
                    .equals(
                        scalar(
                            db,
                            "select count(*) from notifier_receipt where event_id = '"
                                + event.eventId()
                                + "'")));
  }

  private static String scalar(TestDatabase db, String sql) throws Exception {
    try (Connection connection = db.connect();
        PreparedStatement statement = connection.prepareStatement(sql);
        ResultSet rows = statement.executeQuery()) {
      return rows.next() ? rows.getString(1) : null;
    }
  }

  private static KafkaProducer<byte[], byte[]> producer(TestKafka kafka) {
    return new KafkaProducer<>(
        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
        new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  private static Database open(TestDatabase db) {
    return Database.open(
        new Database.Options(
            db.jdbcUrl(),
            db.user(),
            db.password(),
            4,
            "test",
            "classpath:db/notifier",
            "flyway_notifier_history"));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
