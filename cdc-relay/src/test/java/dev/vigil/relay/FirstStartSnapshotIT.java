package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
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
      for (int i = 0; i < 200; i++) {
        AlertEvent event = RelayFixture.insertNext(c, "early-" + (i % 10));
        serviceById.put(event.eventId().toString(), event.service());
      }
    }
    String topic = kafka.uniqueName("alerts");
    Map<String, String> env =
        RelayFixture.env(db, kafka, RelayFixture.uniqueSlot("snap"), topic, "a");
    env.put("VIGIL_RELAY_SNAPSHOT_MODE", "initial");

    try (RelayService relay = RelayFixture.startStreaming(RelayFixture.config(env))) {
      try (Connection c = db.connect()) {
        for (int i = 0; i < 100; i++) {
          AlertEvent event = RelayFixture.insertNext(c, "early-" + (i % 10));
          serviceById.put(event.eventId().toString(), event.service());
        }
      }
      try (TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic)) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Deliveries.ids(reader.poll(), "early-").containsAll(serviceById.keySet()));

        int duplicates = Deliveries.verify(reader.poll(), "early-", serviceById);
        assertThat(duplicates).isZero();
      }
    }
  }
}
