package dev.vigil.relay.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.metrics.ServiceMetrics;
import dev.vigil.relay.ops.RelayMetrics;
import dev.vigil.relay.ops.RelayStatus;
import io.debezium.engine.RecordChangeEvent;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Debezium restarts its task by itself (same producer, same publisher) and reads its offsets again;
 * read before the markers of the last commit landed, they are older than what the publisher
 * committed, and PostgreSQL streams committed transactions again. The publisher never commits them
 * a second time and never stores an offset behind the one it committed.
 */
@ExtendWith(VigilInfraExtension.class)
class RepeatedAfterTaskRestartIT {
  private static final String ENGINE = "vigil-relay-repeat";
  private static final Schema STATUS =
      SchemaBuilder.struct().field("status", Schema.STRING_SCHEMA).build();
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closing.reversed()) {
      c.close();
    }
  }

  @Test
  void transactionsStreamedAgainFromAnOlderOffsetAreNotCommittedTwice(TestKafka kafka)
      throws Exception {
    String topic = kafka.uniqueName("repeat");
    String offsetsTopic = kafka.uniqueName("repeat-offsets");
    kafka.createTopic(topic, 1);
    kafka.createTopic(offsetsTopic, 1);
    ExactlyOncePublisher publisher = publisher(kafka, topic, offsetsTopic);

    // Transactions A (commit 200) and B (commit 300), committed in two batches.
    publisher.handleBatch(transaction(topic, "a", 100, 110, 200), new RecordedMarks());
    publisher.handleBatch(transaction(topic, "b", 100, 210, 300), new RecordedMarks());

    // The task restarts from A's commit (B's markers not yet read): B comes again, then C.
    List<RecordChangeEvent<SourceRecord>> again = new ArrayList<>();
    again.addAll(transaction(topic, "b", 200, 210, 300));
    again.addAll(transaction(topic, "c", 300, 310, 400));
    RecordedMarks marks = new RecordedMarks();
    publisher.handleBatch(again, marks);
    assertThat(marks.processed).as("every record marked, the repeats too").hasSize(again.size());

    // Only B again: nothing committed, the stored offset stays at C.
    publisher.handleBatch(transaction(topic, "b", 200, 210, 300), new RecordedMarks());

    assertThat(
            kafka.readCommitted(topic).stream()
                .map(r -> new String(r.value(), StandardCharsets.UTF_8))
                .toList())
        .containsExactly("a", "b", "c");
    assertThat(storedCommitLsn(kafka, offsetsTopic)).hasValue(400);
  }

  /** BEGIN, one outbox event and END of a PostgreSQL transaction, as Debezium offsets them. */
  private static List<RecordChangeEvent<SourceRecord>> transaction(
      String topic, String value, long previousCommit, long lsn, long commit) {
    Map<String, Object> begin =
        Map.of(
            TransactionBoundary.MESSAGE_TYPE,
            "BEGIN",
            TransactionBoundary.LSN_PROCESSED,
            previousCommit,
            TransactionBoundary.LSN_COMMIT,
            previousCommit,
            TransactionBoundary.LSN,
            lsn - 1);
    Map<String, Object> insert =
        Map.of(
            TransactionBoundary.MESSAGE_TYPE, "INSERT",
            TransactionBoundary.LSN_PROCESSED, previousCommit,
            TransactionBoundary.LSN_COMMIT, previousCommit,
            TransactionBoundary.LSN, lsn);
    Map<String, Object> end =
        Map.of(
            TransactionBoundary.MESSAGE_TYPE, "COMMIT",
            TransactionBoundary.LSN_PROCESSED, commit,
            TransactionBoundary.LSN_COMMIT, commit,
            TransactionBoundary.LSN, commit);
    Map<String, Object> partition = Map.of("server", "vigil_relay");
    SourceRecord b =
        new SourceRecord(
            partition,
            begin,
            "vigil_relay.transaction",
            null,
            null,
            null,
            STATUS,
            new Struct(STATUS).put("status", "BEGIN"));
    return List.of(
        () -> b,
        () -> new SourceRecord(partition, insert, topic, null, "svc", null, value),
        () -> new SourceRecord(partition, end, "vigil_relay.transaction", null, null, null, null));
  }

  private ExactlyOncePublisher publisher(TestKafka kafka, String topic, String offsetsTopic) {
    KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                kafka.uniqueName("vigil-relay-repeat")),
            new ByteArraySerializer(),
            new ByteArraySerializer());
    closing.add(producer);
    producer.initTransactions();
    ServiceMetrics serviceMetrics = ServiceMetrics.create("relay");
    closing.add(serviceMetrics);
    return new ExactlyOncePublisher(
        producer,
        topic,
        "vigil-relay-repeat",
        new OffsetRecords(offsetsTopic, ENGINE),
        new RelayMetrics(serviceMetrics, new RelayStatus("test")),
        () -> null,
        new LargeTransactions(java.time.Duration.ofSeconds(60)),
        () -> {});
  }

  private static OptionalLong storedCommitLsn(TestKafka kafka, String offsetsTopic) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    try (OffsetsTopicReader reader = new OffsetsTopicReader(props, offsetsTopic)) {
      OffsetRecords records = new OffsetRecords(offsetsTopic, ENGINE);
      Map<ByteBuffer, ByteBuffer> stored = reader.catchUp();
      return records.readLsn(
          stored.get(ByteBuffer.wrap(records.key(Map.of("server", "vigil_relay")))));
    }
  }
}
