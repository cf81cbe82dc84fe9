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
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

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

    try (RelayService relay = RelayService.start(new RelayConfig(new Settings(env)));
        Connection c = db.connect()) {
      LocalStack.awaitStreaming(relay, Duration.ofSeconds(60));
      Set<String> written = new HashSet<>();
      for (int done = 0; done < ROWS; done += WRITE_BATCH) {
        written.addAll(insertRows(c, WRITE_BATCH));
      }
      await("every row published once")
          .atMost(Duration.ofMinutes(5))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> kafka.readCommitted(topic).size() >= written.size());

      long started = System.nanoTime();
      ReplayResult result =
          new OutboxReplay(db.dataSource(), 1_000_000, 1_000, new SimpleMeterRegistry())
              .replay(new ReplaySelection(null, 1L, null, null, null), false);
      long replayMs = (System.nanoTime() - started) / 1_000_000;
      assertThat(result.replayed()).isEqualTo(ROWS);
      assertThat(result.chunks()).isEqualTo((ROWS + 999) / 1000);

      await("every row published a second time")
          .atMost(Duration.ofMinutes(5))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> kafka.readCommitted(topic).size() >= 2 * ROWS);
      long drainedMs = (System.nanoTime() - started) / 1_000_000;
      Map<String, Long> timesSeen =
          kafka.readCommitted(topic).stream()
              .collect(
                  Collectors.groupingBy(
                      r ->
                          new String(
                              r.headers().lastHeader(AlertTopic.HEADER_EVENT_ID).value(),
                              StandardCharsets.UTF_8),
                      Collectors.counting()));
      assertThat(timesSeen.keySet()).isEqualTo(written);
      assertThat(timesSeen.values()).allMatch(n -> n == 2, "each event exactly twice");
      System.out.printf(
          "replay through the relay: %d rows in %d chunks, written in %d ms, all on Kafka again"
              + " after %d ms%n",
          ROWS, result.chunks(), replayMs, drainedMs);
    }
  }

  /**
   * Commits {@code rows} FAILED outbox rows in one transaction, a few hundred bytes each like real
   * alerts with an error, spread over {@link #SERVICES} services.
   *
   * @return their event ids
   */
  private static List<String> insertRows(Connection c, int rows) throws Exception {
    List<String> ids = new ArrayList<>(rows);
    c.setAutoCommit(false);
    try (PreparedStatement insert =
        c.prepareStatement(
            """
            insert into outbox (id, aggregatetype, aggregateid, type, payload, incident_id,
                                schema_version)
            values (?, 'service', ?, 'FAILED', ?::jsonb, ?, 1)
            """)) {
      for (int i = 0; i < rows; i++) {
        AlertEvent e =
            AlertEvent.failed(
                UUID.randomUUID(),
                UUID.randomUUID(),
                "replay-" + (i % SERVICES),
                Instant.now(),
                3,
                "connection refused by upstream ".repeat(10));
        insert.setObject(1, e.eventId());
        insert.setString(2, e.service());
        insert.setString(3, AlertEventJson.write(e));
        insert.setObject(4, e.incidentId());
        insert.addBatch();
        ids.add(e.eventId().toString());
      }
      insert.executeBatch();
      c.commit();
    } finally {
      c.setAutoCommit(true);
    }
    return ids;
  }
}
