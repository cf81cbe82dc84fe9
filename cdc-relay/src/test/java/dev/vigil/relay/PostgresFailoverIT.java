package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.harness.failover.PostgresStandbyPair;
import dev.vigil.harness.failover.TcpForwarder;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.relay.ops.RelayStatus;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * PostgreSQL fails over under the relay: the primary is killed with SIGKILL while outbox rows flow,
 * the streaming standby is promoted, and the database address moves to it. The relay's failover
 * slot was synchronised to the standby, so the relay resumes there by itself and every outbox row
 * reaches Kafka.
 */
@ExtendWith(VigilInfraExtension.class)
class PostgresFailoverIT {
  private static final String PREFIX = "pgfo-";

  @Test
  void primaryKilledAndStandbyPromotedTheRelayResumesFromTheSyncedSlotAndLosesNothing(
      TestKafka kafka) throws Exception {
    Path dir = Path.of("target", "pg-failover-" + UUID.randomUUID().toString().substring(0, 8));
    String slot = RelayFixture.uniqueSlot("pgfo");
    String topic = kafka.uniqueName("alerts");
    try (PostgresStandbyPair pair = PostgresStandbyPair.start(dir);
        // The relay and the writers know one address, as behind a VIP or a cloud writer endpoint.
        TcpForwarder address = TcpForwarder.start(pair.primaryPort())) {
      pair.createDatabase("vigil");
      TestDatabase db =
          new TestDatabase("localhost", address.port(), "vigil", PostgresStandbyPair.USER, "");
      RelayFixture.migrateMonitor(db);
      RelayFixture.createSequenceTable(db);
      Map<String, String> env = RelayFixture.env(db, kafka, slot, topic, "relay");

      try (RelayService relay = RelayFixture.startStreaming(RelayFixture.config(env));
          TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic);
          LoadWriter writer = LoadWriter.openEnded(db, PREFIX, 10, 2, 200)) {
        await()
            .atMost(Duration.ofSeconds(120))
            .until(() -> Deliveries.ids(reader.poll(), PREFIX).size() >= 200);
        // The failover slot must be on the standby before the primary dies; a plain slot never is.
        pair.awaitSyncedSlot(slot, Duration.ofSeconds(180));
        int writtenAtKill = writer.written();

        pair.killPrimary();
        pair.promoteStandby();
        address.retarget(pair.standbyPort());
        writer.stopAfterMoreRows(400);
        Map<String, String> committed = writer.awaitDone();

        Set<String> inOutbox = outboxIds(db);
        assertThat(inOutbox)
            .as("every acknowledged commit survived the failover (synchronous standby)")
            .containsAll(committed.keySet());
        await()
            .atMost(Duration.ofSeconds(180))
            .until(() -> Deliveries.ids(reader.poll(), PREFIX).containsAll(inOutbox));
        Set<String> missing = new HashSet<>(inOutbox);
        missing.removeAll(Deliveries.ids(reader.poll(), PREFIX));
        int duplicates = Deliveries.verify(reader.poll(), PREFIX, committed);
        System.out.printf(
            "postgres failover: %d outbox rows (%d acknowledged, %d before the kill),"
                + " missing %d, duplicates %d%n",
            inOutbox.size(), committed.size(), writtenAtKill, missing.size(), duplicates);
        assertThat(missing).as("outbox rows not on the topic").isEmpty();
        // After a failure the relay reports streaming again only once the new run has relayed and
        // stayed up for its recovery confirmation, which may end after the last row arrived.
        await("relay reports streaming again")
            .atMost(Duration.ofSeconds(120))
            .until(() -> relay.status().state() == RelayStatus.State.STREAMING);
      }
    }
  }

  /** Every outbox id of this test on the server the address now points to. */
  private static Set<String> outboxIds(TestDatabase db) throws SQLException {
    Set<String> ids = new HashSet<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        var rs =
            s.executeQuery(
                "select id::text from outbox where aggregateid like '" + PREFIX + "%'")) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    }
    return ids;
  }
}
