package dev.vigil.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertTopic;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.replay.OutboxReplay;
import dev.vigil.monitor.replay.ReplayResult;
import dev.vigil.monitor.replay.ReplaySelection;
import dev.vigil.relay.RelayService;
import dev.vigil.relay.config.RelayConfig;
import dev.vigil.relay.ops.RelayStatus;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.PGConnection;

/**
 * The monitor's replay through the exactly-once relay: every row of a large range published again,
 * chunk by chunk, each chunk one Kafka transaction, each event exactly twice on the topic ({@code
 * read_committed}): once when written, once replayed. {@code -Dvigil.replay.rows=100000} runs it at
 * the size of issue 33. It lives here, beside the other tests that need both services, so that
 * neither service's build waits for the other's.
 */
@ExtendWith(VigilInfraExtension.class)
class ReplayThroughRelayIT {
  private static final int ROWS = Integer.getInteger("vigil.replay.rows", 20_000);
  private static final int WRITE_BATCH = 2_000;
  private static final int SERVICES = 50;

  @Test
  void aLargeReplayGoesThroughTheExactlyOnceRelayInChunksEachEventOnceMore(
      TestDatabase db, TestKafka kafka) throws Exception {
    MonitorSchema.migrate(db.dataSource());
    String topic = kafka.uniqueName("alerts");
    String slot = "replay_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", db.jdbcUrl());
    env.put("VIGIL_DB_USER", db.user());
    env.put("VIGIL_DB_PASSWORD", db.password());
    env.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    env.put("VIGIL_TOPIC", topic);
    env.put("VIGIL_TOPIC_PARTITIONS", "4");
    env.put("VIGIL_TOPIC_REPLICATION_FACTOR", "1");
    env.put("VIGIL_RELAY_SLOT", slot);
    env.put("VIGIL_RELAY_PUBLICATION", "pub_" + slot);
    env.put("VIGIL_HTTP_PORT", "0");
    // Each chunk is one Kafka transaction well within this, on a loaded machine too. Had the
    // replay been one transaction, or had a chunk timed out, Kafka would have ended it and the
    // relay published it in chunks at least once: events more than twice on the topic.
    env.put("VIGIL_RELAY_TRANSACTION_TIMEOUT", "30s");

    try (RelayService relay = streaming(RelayService.start(new RelayConfig(new Settings(env))));
        Reader reader = new Reader(kafka.bootstrapServers(), topic);
        Connection c = db.connect()) {
      Set<String> written = new HashSet<>();
      for (int done = 0; done < ROWS; done += WRITE_BATCH) {
        written.addAll(copyRows(c, WRITE_BATCH));
      }
      await("every row published once")
          .atMost(Duration.ofMinutes(5))
          .until(() -> reader.poll().size() == written.size());

      long started = System.nanoTime();
      ReplayResult result =
          new OutboxReplay(db.dataSource(), 1_000_000, 1_000, new SimpleMeterRegistry())
              .replay(new ReplaySelection(null, 1L, null, null, null), false);
      long replayMs = (System.nanoTime() - started) / 1_000_000;
      assertThat(result.replayed()).isEqualTo(ROWS);
      assertThat(result.chunks()).isEqualTo((ROWS + 999) / 1000);

      await("every row published a second time")
          .atMost(Duration.ofMinutes(5))
          .until(() -> reader.total() >= 2L * ROWS);
      long drainedMs = (System.nanoTime() - started) / 1_000_000;
      reader.poll();
      assertThat(reader.timesSeen().keySet()).isEqualTo(written);
      assertThat(reader.timesSeen().values()).allMatch(n -> n == 2, "each event exactly twice");
      System.out.printf(
          "replay through the relay: %d rows in %d chunks, written in %d ms, all on Kafka again"
              + " after %d ms%n",
          ROWS, result.chunks(), replayMs, drainedMs);
    }
  }

  /**
   * Waits until {@code relay} streams (it has created the topic then); closes it if it does not.
   */
  private static RelayService streaming(RelayService relay) {
    try {
      await("relay streaming")
          .atMost(Duration.ofSeconds(60))
          .until(() -> relay.status().state() == RelayStatus.State.STREAMING);
      return relay;
    } catch (RuntimeException e) {
      relay.close();
      throw e;
    }
  }

  /**
   * Commits {@code rows} FAILED outbox rows in one {@code COPY}, a few hundred bytes each like real
   * alerts with an error, spread over {@link #SERVICES} services.
   *
   * @return their event ids
   */
  private static List<String> copyRows(Connection c, int rows) throws Exception {
    StringBuilder csv = new StringBuilder();
    List<String> ids = new ArrayList<>(rows);
    for (int i = 0; i < rows; i++) {
      AlertEvent e =
          AlertEvent.failed(
              UUID.randomUUID(),
              UUID.randomUUID(),
              "replay-" + (i % SERVICES),
              Instant.now(),
              3,
              "connection refused by upstream ".repeat(10));
      ids.add(e.eventId().toString());
      csv.append(e.eventId())
          .append(",service,")
          .append(e.service())
          .append(",FAILED,\"")
          .append(AlertEventJson.write(e).replace("\"", "\"\""))
          .append("\",")
          .append(e.incidentId())
          .append(",1\n");
    }
    c.unwrap(PGConnection.class)
        .getCopyAPI()
        .copyIn(
            "copy outbox (id, aggregatetype, aggregateid, type, payload, incident_id,"
                + " schema_version) from stdin with (format csv)",
            new StringReader(csv.toString()));
    return ids;
  }

  /** Reads the topic {@code read_committed} from the start, counting each event id's records. */
  private static final class Reader implements AutoCloseable {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<String, Long> timesSeen = new HashMap<>();
    private long total;

    Reader(String bootstrapServers, String topic) {
      consumer =
          new KafkaConsumer<>(
              Map.of(
                  ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                  bootstrapServers,
                  ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                  false,
                  ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                  "read_committed",
                  ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                  5000),
              new ByteArrayDeserializer(),
              new ByteArrayDeserializer());
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
              .map(info -> new TopicPartition(topic, info.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
    }

    /** Polls once more; returns the event ids read so far. */
    Set<String> poll() {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
        Header id = r.headers().lastHeader(AlertTopic.HEADER_EVENT_ID);
        String eventId = id == null ? "(none)" : new String(id.value(), StandardCharsets.UTF_8);
        timesSeen.merge(eventId, 1L, Long::sum);
        total++;
      }
      return timesSeen.keySet();
    }

    long total() {
      poll();
      return total;
    }

    Map<String, Long> timesSeen() {
      return timesSeen;
    }

    @Override
    public void close() {
      consumer.close();
    }
  }
}
