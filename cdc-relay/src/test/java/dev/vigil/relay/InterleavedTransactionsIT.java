package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.relay.config.RelayConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A restart must not lose a transaction that began before the last delivered one committed and
 * committed after the relay stopped: concurrent writers (the monitor's recorder connections, the
 * relay's own heartbeat) interleave their transactions in the WAL all the time.
 *
 * <p>The nastiest case, built here on purpose: transaction A writes rows, transaction B commits
 * (the relay delivers it and stores its commit as its position), and A's next row is the very next
 * WAL record after B's commit, so it sits at the LSN Debezium records for B's commit. Debezium
 * 3.6.1's restart search takes that row for "the last event stored", resumes after it and drops
 * every row of A up to it (upstream debezium/dbz#76, fixed after 3.6).
 */
@ExtendWith(VigilInfraExtension.class)
class InterleavedTransactionsIT {

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {RelayConfig.EXACTLY_ONCE, RelayConfig.AT_LEAST_ONCE})
  void aTransactionOpenAcrossTheLastStoredCommitIsDeliveredWholeAfterARestart(
      String delivery, TestDatabase db, TestKafka kafka) throws Exception {
    RelayFixture.migrateMonitor(db);
    String topic = kafka.uniqueName("alerts");
    kafka.createTopic(topic, 4);
    String slot = RelayFixture.uniqueSlot("interleave");
    Map<String, String> env = RelayFixture.env(db, kafka, slot, topic, "interleave");
    env.put("VIGIL_RELAY_DELIVERY", delivery);
    // No heartbeat row may land between B's commit and A's next row.
    env.put("VIGIL_RELAY_HEARTBEAT_INTERVAL", "1h");
    RelayConfig config = RelayFixture.config(env);
    List<AlertEvent> longTransaction = new ArrayList<>();

    try (Connection a = db.connect();
        Connection b = db.connect();
        TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic)) {
      try (RelayService relay = RelayFixture.startStreaming(config)) {
        AlertEvent first = event("il-first");
        RelayFixture.insert(b, first);
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Deliveries.ids(reader.poll(), "il-").contains(id(first)));

        a.setAutoCommit(false);
        for (int i = 0; i < 3; i++) {
          longTransaction.add(insert(a, event("il-long")));
        }
        AlertEvent shortOne = event("il-short");
        RelayFixture.insert(b, shortOne);
        String afterShortCommit = walInsertLsn(b);
        String beforeNextRow = walInsertLsn(a);
        longTransaction.add(insert(a, event("il-long")));
        assertThat(beforeNextRow)
            .as("precondition: A's next row is the WAL record right after B's commit")
            .isEqualTo(afterShortCommit);

        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Deliveries.ids(reader.poll(), "il-").contains(id(shortOne)));
      }
      // Stopped cleanly: its last stored position is B's commit. A commits while it is down.
      a.commit();

      try (RelayService relay = RelayFixture.startStreaming(config)) {
        List<String> wanted = longTransaction.stream().map(InterleavedTransactionsIT::id).toList();
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(200))
            .untilAsserted(
                () ->
                    assertThat(Deliveries.ids(reader.poll(), "il-long"))
                        .as("rows of the transaction open across the stored commit")
                        .containsAll(wanted));
      }
    }
  }

  private static AlertEvent event(String service) {
    return AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), service, Instant.now(), 3, null);
  }

  private static AlertEvent insert(Connection c, AlertEvent event) throws SQLException {
    RelayFixture.insert(c, event);
    return event;
  }

  private static String id(AlertEvent event) {
    return event.eventId().toString();
  }

  private static String walInsertLsn(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        var rs = s.executeQuery("select pg_current_wal_insert_lsn()::text")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
