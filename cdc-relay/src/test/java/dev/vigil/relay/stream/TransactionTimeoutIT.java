package dev.vigil.relay.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.metrics.ServiceMetrics;
import dev.vigil.relay.ops.RelayMetrics;
import dev.vigil.relay.ops.RelayStatus;
import io.debezium.engine.RecordChangeEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The exactly-once publisher against a real broker: a transaction the broker aborted because it
 * stayed open longer than {@code transaction.timeout.ms} is not fencing (the run restarts), while a
 * newer producer with the same transactional id is (the relay stops for good). Kafka reports both
 * to the old producer's produce as {@code InvalidProducerEpochException}.
 */
@ExtendWith(VigilInfraExtension.class)
class TransactionTimeoutIT {
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closing.reversed()) {
      c.close();
    }
  }

  @Test
  void aTransactionTheBrokerAbortedForItsTimeoutEndsTheRunWithoutFencing(TestKafka kafka)
      throws Exception {
    Setup setup = new Setup(kafka, "timeout");
    KafkaProducer<byte[], byte[]> producer = setup.producer(Duration.ofSeconds(1));
    ExactlyOncePublisher publisher = setup.publisher(producer);

    // A PostgreSQL transaction whose END is in a later batch: its Kafka transaction stays open.
    publisher.handleBatch(
        List.of(event(setup.topic, "svc-a", "first", 1, false)), new RecordedMarks());
    producer.flush(); // acknowledged: the coordinator's clock for the transaction runs
    try (Admin admin = kafka.admin()) {
      // The broker looks for timed-out transactions every 10 s by default.
      await("the broker aborts the transaction after its 1 s timeout")
          .atMost(Duration.ofSeconds(40))
          .pollInterval(Duration.ofMillis(250))
          .until(
              () ->
                  admin
                          .describeTransactions(List.of(setup.transactionalId))
                          .description(setup.transactionalId)
                          .get(10, TimeUnit.SECONDS)
                          .state()
                      == TransactionState.COMPLETE_ABORT);
    }

    RecordedMarks marks = new RecordedMarks();
    assertThatThrownBy(
            () ->
                publisher.handleBatch(
                    List.of(event(setup.topic, "svc-a", "second", 2, true)), marks))
        .isNotInstanceOf(RelayFencedException.class)
        .hasMessageContaining("Kafka ended the relay's open transaction")
        .hasMessageContaining("InvalidProducerEpochException")
        .hasMessageContaining("nothing is skipped");
    assertThat(marks.processed).as("nothing marked: the run restarts from before it").isEmpty();

    // The restarted run (a new producer with the same id) relays the transaction again.
    ExactlyOncePublisher next = setup.publisher(setup.producer(Duration.ofSeconds(60)));
    RecordedMarks again = new RecordedMarks();
    next.handleBatch(
        List.of(
            event(setup.topic, "svc-a", "first", 1, false),
            event(setup.topic, "svc-a", "second", 2, true)),
        again);
    assertThat(again.processed).hasSize(2);
    assertThat(setup.committedValues()).containsExactly("first", "second");
  }

  @Test
  void aNewerProducerWithTheSameIdStopsTheRelayForGood(TestKafka kafka) throws Exception {
    Setup setup = new Setup(kafka, "zombie");
    KafkaProducer<byte[], byte[]> producer = setup.producer(Duration.ofSeconds(60));
    ExactlyOncePublisher publisher = setup.publisher(producer);
    publisher.handleBatch(
        List.of(event(setup.topic, "svc-z", "first", 1, false)), new RecordedMarks());
    producer.flush();

    setup.producer(Duration.ofSeconds(60)); // another relay on the slot registers the id

    assertThatThrownBy(
            () ->
                publisher.handleBatch(
                    List.of(event(setup.topic, "svc-z", "second", 2, true)), new RecordedMarks()))
        .isInstanceOf(RelayFencedException.class)
        .hasMessageContaining("took over");
    assertThat(setup.committedValues()).isEmpty();
  }

  /** One outbox event; {@code endsTransaction}: its offset is the END of its transaction. */
  private static RecordChangeEvent<SourceRecord> event(
      String topic, String service, String value, long lsn, boolean endsTransaction) {
    Map<String, Object> offset =
        endsTransaction
            ? Map.of(
                TransactionBoundary.MESSAGE_TYPE, "COMMIT",
                TransactionBoundary.LSN_PROCESSED, lsn,
                TransactionBoundary.LSN_COMMIT, lsn)
            : Map.of(
                TransactionBoundary.MESSAGE_TYPE,
                "INSERT",
                TransactionBoundary.LSN_PROCESSED,
                lsn,
                TransactionBoundary.LSN_COMMIT,
                lsn + 1);
    SourceRecord record =
        new SourceRecord(
            Map.of("server", "vigil_relay"), offset, topic, null, service, null, value);
    return () -> record;
  }

  private final class Setup {
    final TestKafka kafka;
    final String topic;
    final String offsetsTopic;
    final String transactionalId;

    Setup(TestKafka kafka, String name) {
      this.kafka = kafka;
      this.topic = kafka.uniqueName(name);
      this.offsetsTopic = kafka.uniqueName(name + "-offsets");
      this.transactionalId = kafka.uniqueName("vigil-relay-" + name);
      kafka.createTopic(topic, 1);
      kafka.createTopic(offsetsTopic, 1);
    }

    KafkaProducer<byte[], byte[]> producer(Duration transactionTimeout) {
      KafkaProducer<byte[], byte[]> producer =
          new KafkaProducer<>(
              Map.of(
                  ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                  kafka.bootstrapServers(),
                  ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                  transactionalId,
                  ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                  (int) transactionTimeout.toMillis()),
              new ByteArraySerializer(),
              new ByteArraySerializer());
      closing.add(producer);
      producer.initTransactions();
      return producer;
    }

    ExactlyOncePublisher publisher(KafkaProducer<byte[], byte[]> producer) {
      ServiceMetrics serviceMetrics = ServiceMetrics.create("relay");
      closing.add(serviceMetrics);
      return new ExactlyOncePublisher(
          producer,
          topic,
          transactionalId,
          new OffsetRecords(offsetsTopic, "vigil_relay"),
          new RelayMetrics(serviceMetrics, new RelayStatus("test")),
          () -> null,
          new LargeTransactions(Duration.ofSeconds(60)),
          () -> {});
    }

    /** The values on the topic for a read_committed reader, in order. */
    List<String> committedValues() {
      return kafka.readCommitted(topic).stream()
          .map(r -> new String(r.value(), StandardCharsets.UTF_8))
          .toList();
    }
  }
}
