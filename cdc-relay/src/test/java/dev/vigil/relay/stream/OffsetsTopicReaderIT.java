package dev.vigil.relay.stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The offsets reader Debezium's task asks at every offset commit: it answers what is committed up
 * to the last stable offset, and reads each record once (not the whole topic again per commit).
 */
@ExtendWith(VigilInfraExtension.class)
class OffsetsTopicReaderIT {

  @Test
  void laterReadsSeeNewCommitsAndTombstonesButReadOnlyWhatIsNew(TestKafka kafka) {
    String topic = kafka.uniqueName("offsets");
    kafka.createTopic(topic, 1);
    try (KafkaProducer<byte[], byte[]> producer = producer(kafka);
        OffsetsTopicReader reader = reader(kafka, topic)) {
      producer.initTransactions();
      for (int i = 0; i < 50; i++) {
        commit(producer, topic, "other-" + i, "v" + i);
      }
      commit(producer, topic, "engine", "{\"lsn\":1}");
      awaitValue(reader, "{\"lsn\":1}");
      long afterFirst = reader.recordsRead();
      assertThat(afterFirst).isEqualTo(51);

      commit(producer, topic, "engine", "{\"lsn\":2}");
      awaitValue(reader, "{\"lsn\":2}");
      // One new record read, not the 52 the topic holds.
      assertThat(reader.recordsRead()).isEqualTo(afterFirst + 1);

      commit(producer, topic, "other-0", null);
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> assertThat(reader.catchUp()).doesNotContainKey(key("other-0")).hasSize(50));
    }
  }

  @Test
  void anAbortedTransactionsOffsetIsNeverAnswered(TestKafka kafka) {
    String topic = kafka.uniqueName("offsets");
    kafka.createTopic(topic, 1);
    try (KafkaProducer<byte[], byte[]> producer = producer(kafka);
        OffsetsTopicReader reader = reader(kafka, topic)) {
      producer.initTransactions();
      commit(producer, topic, "engine", "{\"lsn\":1}");
      awaitValue(reader, "{\"lsn\":1}");
      producer.beginTransaction();
      producer.send(record(topic, "engine", "{\"lsn\":9}"));
      producer.flush();
      producer.abortTransaction();
      // A later commit on the same partition: once it is read, the aborted record lies behind.
      commit(producer, topic, "marker", "{}");
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(() -> assertThat(reader.catchUp()).containsKey(key("marker")));
      assertThat(value(reader.catchUp(), "engine")).isEqualTo("{\"lsn\":1}");
      commit(producer, topic, "engine", "{\"lsn\":2}");
      awaitValue(reader, "{\"lsn\":2}");
    }
  }

  @Test
  void aTopicThatDoesNotExistYetIsEmptyAndIsReadOnceItExists(TestKafka kafka) {
    String topic = kafka.uniqueName("offsets");
    try (OffsetsTopicReader reader = reader(kafka, topic)) {
      assertThat(reader.catchUp()).isEmpty();
      kafka.createTopic(topic, 1);
      try (KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
        producer.initTransactions();
        commit(producer, topic, "engine", "{\"lsn\":3}");
      }
      awaitValue(reader, "{\"lsn\":3}");
    }
  }

  /**
   * A commit's markers reach the partition a moment after {@code commitTransaction()} returns, so
   * the last stable offset may still be before it: the reader answers the previous offset until
   * then (as Debezium's next commit would read the newer one).
   */
  private static void awaitValue(OffsetsTopicReader reader, String expected) {
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(value(reader.catchUp(), "engine")).isEqualTo(expected));
  }

  private static OffsetsTopicReader reader(TestKafka kafka, String topic) {
    return new OffsetsTopicReader(
        Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()), topic);
  }

  private static KafkaProducer<byte[], byte[]> producer(TestKafka kafka) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ProducerConfig.TRANSACTIONAL_ID_CONFIG,
            kafka.uniqueName("offsets-writer")),
        new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  private static void commit(
      KafkaProducer<byte[], byte[]> producer, String topic, String key, String value) {
    producer.beginTransaction();
    producer.send(record(topic, key, value));
    producer.commitTransaction();
  }

  private static ProducerRecord<byte[], byte[]> record(String topic, String key, String value) {
    return new ProducerRecord<>(
        topic, key.getBytes(UTF_8), value == null ? null : value.getBytes(UTF_8));
  }

  private static ByteBuffer key(String key) {
    return ByteBuffer.wrap(key.getBytes(UTF_8));
  }

  private static String value(Map<ByteBuffer, ByteBuffer> offsets, String key) {
    ByteBuffer v = offsets.get(key(key));
    return v == null ? null : UTF_8.decode(v.duplicate()).toString();
  }
}
