package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertTopic;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.monitor.replay.OutboxReplay;
import dev.vigil.monitor.replay.ReplayResult;
import dev.vigil.monitor.replay.ReplaySelection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The monitor's replay through the exactly-once relay: every row of a large range published again,
 * chunk by chunk, each chunk one Kafka transaction, each event exactly twice on the topic ({@code
 * read_committed}): once when written, once replayed. {@code -Dvigil.replay.rows=100000} runs it at
 * the size.
 */
@ExtendWith(VigilInfraExtension.class)
class ReplayThroughRelayIT {
  private static final String PREFIX = "replay-";
  private static final int ROWS = Integer.getInteger("vigil.replay.rows", 20_000);
  private static final int WRITE_BATCH = 2_000;

  @Test
  void aLargeReplayGoesThroughTheExactlyOnceRelayInChunksEachEventOnceMore(
      TestDatabase db, TestKafka kafka) throws Exception {
    RelayFixture.migrateMonitor(db);
    String topic = kafka.uniqueName("alerts");
    Map<String, String> env =
        new HashMap<>(
            RelayFixture.env(db, kafka, RelayFixture.uniqueSlot("replay"), topic, "replay"));
    // Each chunk is one Kafka transaction well within this, on a loaded machine too. Had the
    // replay been one transaction, or had a chunk timed out, Kafka would have ended it and the
    // relay published it in chunks at least once: events more than twice on the topic.
    env.put("VIGIL_RELAY_TRANSACTION_TIMEOUT", "30s");

    try (RelayService relay = RelayFixture.startStreaming(RelayFixture.config(env));
        TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic);
        Connection c = db.connect()) {
      BulkLoader loader = new BulkLoader(PREFIX, 50);
      Map<String, Long> written = new HashMap<>();
      for (int done = 0; done < ROWS; done += WRITE_BATCH) {
        for (AlertEvent e : loader.commit(c, BulkLoader.Method.COPY, WRITE_BATCH)) {
          written.put(e.eventId().toString(), 0L);
        }
      }
      await("every row published once")
          .atMost(Duration.ofMinutes(5))
          .until(() -> Deliveries.ids(reader.poll(), PREFIX).size() == written.size());

      long started = System.nanoTime();
      ReplayResult result =
          new OutboxReplay(db.dataSource(), 1_000_000, 1_000, new SimpleMeterRegistry())
              .replay(new ReplaySelection(null, 1L, null, null, null), false);
      long replayMs = (System.nanoTime() - started) / 1_000_000;
      assertThat(result.replayed()).isEqualTo(ROWS);
      assertThat(result.chunks()).isEqualTo((ROWS + 999) / 1000);

      await("every row published a second time")
          .atMost(Duration.ofMinutes(5))
          .until(() -> mine(reader.poll()).size() >= 2L * ROWS);
      long drainedMs = (System.nanoTime() - started) / 1_000_000;
      Map<String, Long> times =
          mine(reader.poll()).stream()
              .collect(
                  Collectors.groupingBy(
                      r -> r.headers().get(AlertTopic.HEADER_EVENT_ID), Collectors.counting()));
      assertThat(times.keySet()).isEqualTo(written.keySet());
      assertThat(times.values()).allMatch(n -> n == 2, "each event exactly twice");
      System.out.printf(
          "replay through the relay: %d rows in %d chunks, written in %d ms, all on Kafka again"
              + " after %d ms%n",
          ROWS, result.chunks(), replayMs, drainedMs);
    }
  }

  private static List<TopicReader.Received> mine(List<TopicReader.Received> records) {
    return records.stream()
        .filter(r -> r.keyText() != null && r.keyText().startsWith(PREFIX))
        .collect(Collectors.toList());
  }
}
