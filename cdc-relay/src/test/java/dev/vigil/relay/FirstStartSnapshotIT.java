package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.relay.ops.RelayStatus;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * With {@code VIGIL_RELAY_SNAPSHOT_MODE=initial} (used by the compose stack, where the monitor may
 * commit alerts before the relay's slot exists) a first start also sends the rows already in the
 * outbox, in per-service order, followed by the rows committed afterwards.
 */
@ExtendWith(VigilInfraExtension.class)
class FirstStartSnapshotIT {

  @Test
  void initialSnapshotSendsExistingRowsThenStreamsInOrder(TestDatabase db, TestKafka kafka)
      throws Exception {
    RelayFixture.migrateMonitor(db);
    RelayFixture.createSequenceTable(db);
    Map<String, String> serviceById = new HashMap<>();
    try (Connection c = db.connect()) {
      // created_at runs backwards while the early rows are written (a writer whose clock jumps
      // back): the snapshot must still replay them in commit order, which is seq, not created_at.
      try (var statement = c.createStatement()) {
        statement.execute(
            "alter table outbox alter column created_at set default"
                + " timestamptz '2100-01-01' - (clock_timestamp() - timestamptz '2000-01-01')");
      }
      for (int i = 0; i < 200; i++) {
        AlertEvent event = RelayFixture.insertNext(c, "early-" + (i % 10));
        serviceById.put(event.eventId().toString(), event.service());
      }
      c.setAutoCommit(true);
      try (var statement = c.createStatement()) {
        statement.execute(
            "alter table outbox alter column created_at set default clock_timestamp()");
      }
    }
    String topic = kafka.uniqueName("alerts");
    String slot = RelayFixture.uniqueSlot("snap");
    Map<String, String> env = RelayFixture.env(db, kafka, slot, topic, "a");
    env.put("VIGIL_RELAY_SNAPSHOT_MODE", "initial");

    try (RelayService relay = RelayFixture.startStreaming(RelayFixture.config(env));
        TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic)) {
      RelayStatus.Snapshot startedStreaming = relay.status();
      RelayFixture.StreamingRun run = null;
      try (Connection c = db.connect()) {
        for (int i = 0; i < 100; i++) {
          AlertEvent event = RelayFixture.insertNext(c, "early-" + (i % 10));
          serviceById.put(event.eventId().toString(), event.service());
          if (i == 0) {
            // Once a row committed after the start is in Kafka, the engine streams from the slot
            // past its start-up (where Debezium may reconnect once): note its walsender.
            String id = event.eventId().toString();
            await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> Deliveries.ids(reader.poll(), "early-").contains(id));
            run = RelayFixture.currentRun(relay, db, slot);
          }
        }
      }
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Deliveries.ids(reader.poll(), "early-").containsAll(serviceById.keySet()));

      int duplicates = Deliveries.verify(reader.poll(), "early-", serviceById);
      // The relay is at-least-once: a restart sends the unacknowledged tail (or, during the
      // snapshot, the snapshot) again. Without one, nothing may arrive twice.
      assertThat(RelayFixture.currentRun(relay, db, slot))
          .as(
              "the relay ran without restarting during the test (else duplicates are expected;"
                  + " see the log's 'relay state' lines and Debezium's 'restart connector')")
          .isEqualTo(new RelayFixture.StreamingRun(startedStreaming, run.walsenderPid()));
      assertThat(duplicates).isZero();
    }
  }
}
