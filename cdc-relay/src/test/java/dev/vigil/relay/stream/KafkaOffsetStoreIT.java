package dev.vigil.relay.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.runtime.standalone.StandaloneConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Debezium reads the offsets on the task's thread at every commit, also while the engine is
 * stopping the task and has interrupted that thread (seen in the postgres-failover drill as "Failed
 * to close fetcher" and "Failed to fetch offsets"). The store still answers with the committed
 * offsets and leaves the interrupt for the caller.
 */
@ExtendWith(VigilInfraExtension.class)
class KafkaOffsetStoreIT {
  private static final byte[] KEY =
      "[\"vigil-relay-s\",{\"server\":\"vigil_relay\"}]".getBytes(StandardCharsets.UTF_8);
  private static final byte[] VALUE = "{\"lsn_proc\":42}".getBytes(StandardCharsets.UTF_8);

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  @Test
  void anInterruptedCallerGetsTheStoredOffsetsAndKeepsItsInterrupt(TestKafka kafka)
      throws Exception {
    String topic = kafka.uniqueName("offsets");
    kafka.createTopic(topic, 1);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      producer.send(new ProducerRecord<>(topic, KEY, VALUE)).get(30, TimeUnit.SECONDS);
    }
    KafkaOffsetStore store = new KafkaOffsetStore();
    store.configure(
        new StandaloneConfig(
            Map.of(
                KafkaOffsetStore.TOPIC,
                topic,
                KafkaOffsetStore.CONSUMER_PREFIX + ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                WorkerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                WorkerConfig.KEY_CONVERTER_CLASS_CONFIG,
                JsonConverter.class.getName(),
                WorkerConfig.VALUE_CONVERTER_CLASS_CONFIG,
                JsonConverter.class.getName(),
                StandaloneConfig.OFFSET_STORAGE_FILE_FILENAME_CONFIG,
                "unused")));
    store.start();
    try {
      for (int read = 1; read <= 2; read++) {
        // The first read opens the reader on the interrupted thread, the second reuses it.
        Thread.currentThread().interrupt();
        Map<ByteBuffer, ByteBuffer> offsets =
            store.get(List.of(ByteBuffer.wrap(KEY))).get(60, TimeUnit.SECONDS);
        boolean stillInterrupted = Thread.interrupted();

        assertThat(offsets)
            .as("read %d", read)
            .containsEntry(ByteBuffer.wrap(KEY), ByteBuffer.wrap(VALUE));
        assertThat(stillInterrupted).as("read %d: the caller's interrupt is kept", read).isTrue();
      }
    } finally {
      Thread.currentThread().interrupt();
      store.stop();
      assertThat(Thread.interrupted()).as("stop keeps the interrupt").isTrue();
    }
  }
}
