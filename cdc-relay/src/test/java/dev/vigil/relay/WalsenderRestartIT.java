package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The replication connection breaks while the relay streams (its walsender is terminated): Debezium
 * reconnects by itself, without the relay's supervisor noticing, so the relay counts the new
 * walsender in {@code vigil_relay_walsender_restarts_total}; nothing is lost.
 */
@ExtendWith(VigilInfraExtension.class)
class WalsenderRestartIT {

  @Test
  void aReplacedReplicationConnectionIsCountedAndLosesNothing(TestDatabase db, TestKafka kafka)
      throws Exception {
    RelayFixture.migrateMonitor(db);
    RelayFixture.createSequenceTable(db);
    String topic = kafka.uniqueName("alerts");
    String slot = RelayFixture.uniqueSlot("walsender");
    Map<String, String> env = RelayFixture.env(db, kafka, slot, topic, "walsender");
    try (RelayService relay = RelayFixture.startStreaming(RelayFixture.config(env));
        TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic)) {
      AlertEvent first = insert(db, "ws-a");
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Deliveries.ids(reader.poll(), "ws-").contains(first.eventId().toString()));
      int walsender = RelayFixture.slotActivePid(db, slot);
      assertThat(walsender).isPositive();
      // The relay has seen this walsender (its lag sampler reads the slot every 500 ms here).
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> relay.metrics().walsenderPid() == walsender);
      assertThat(relay.metrics().walsenderRestarts()).isZero();

      terminate(db, walsender);
      AlertEvent second = insert(db, "ws-b");
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Deliveries.ids(reader.poll(), "ws-").contains(second.eventId().toString()));
      // One break shows as one or two changes: the restarted task connects, finds its stored
      // position in the WAL, and replaces that connection once more before it streams (the
      // lag sampler may or may not see the short-lived one in between).
      await().atMost(Duration.ofSeconds(30)).until(() -> relay.metrics().walsenderRestarts() >= 1);
      assertThat(relay.metrics().walsenderRestarts()).isBetween(1.0, 2.0);
      assertThat(RelayFixture.slotActivePid(db, slot)).isNotIn(0, walsender);
      assertThat(relay.metrics().scrape())
          .containsPattern("vigil_relay_walsender_restarts_total [12]\\.0");
    }
  }

  private static AlertEvent insert(TestDatabase db, String service) throws Exception {
    try (Connection c = db.connect()) {
      return RelayFixture.insertNext(c, service);
    }
  }

  private static void terminate(TestDatabase db, int pid) throws Exception {
    try (Connection c = db.connect();
        PreparedStatement s = c.prepareStatement("select pg_terminate_backend(?)")) {
      s.setInt(1, pid);
      s.execute();
    }
  }
}
