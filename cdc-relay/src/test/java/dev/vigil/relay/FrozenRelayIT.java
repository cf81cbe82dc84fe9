package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import java.nio.file.Files;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The active relay is frozen with SIGSTOP (a stand-in for a long GC pause, a frozen VM, a stuck
 * disk): its session, and so its advisory lock, stays alive, but it cannot renew its lease. The
 * standby takes over once the lease expired (default VIGIL_RELAY_LEASE, 5 s), ending the frozen
 * relay's sessions; the frozen relay, woken with SIGCONT, writes nothing.
 */
@ExtendWith(VigilInfraExtension.class)
class FrozenRelayIT {
  private static final String PREFIX = "frozen-";

  @Test
  void aFrozenActiveRelayIsReplacedByItsStandbyWithinFifteenSecondsAndWritesNothingWhenWoken(
      TestDatabase db, TestKafka kafka) throws Exception {
    RelayFixture.migrateMonitor(db);
    RelayFixture.createSequenceTable(db);
    String topic = kafka.uniqueName("alerts");
    String slot = RelayFixture.uniqueSlot("frozen");
    Map<String, String> committed = new HashMap<>();

    try (RelayProcess active =
            RelayProcess.start(RelayFixture.env(db, kafka, slot, topic, "active"), "active");
        Connection c = db.connect()) {
      await().atMost(Duration.ofSeconds(180)).until(active::isStreaming);
      try (RelayProcess standby =
              RelayProcess.start(RelayFixture.env(db, kafka, slot, topic, "standby"), "standby");
          TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic)) {
        await()
            .atMost(Duration.ofSeconds(180))
            .until(() -> standby.health().contains("another instance holds the lock"));
        write(c, "before", committed);
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Deliveries.ids(reader.poll(), PREFIX).containsAll(committed.keySet()));

        active.signal("STOP");
        long frozen = System.nanoTime();
        AlertEvent first = write(c, "during", committed);
        await("the row written after the freeze arrives through the standby")
            .atMost(Duration.ofSeconds(15))
            .pollInterval(Duration.ofMillis(50))
            .until(
                () -> Deliveries.ids(reader.poll(), PREFIX).contains(first.eventId().toString()));
        long takeoverMs = (System.nanoTime() - frozen) / 1_000_000;
        assertThat(standby.isStreaming()).as("the standby streams").isTrue();

        active.signal("CONT");
        await("the woken relay does not stream")
            .atMost(Duration.ofSeconds(60))
            .until(() -> !active.isAlive() || active.health().contains("\"active\":false"));
        for (int i = 0; i < 20; i++) {
          write(c, "after", committed);
        }
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Deliveries.ids(reader.poll(), PREFIX).containsAll(committed.keySet()));
        int duplicates = Deliveries.verify(reader.poll(), PREFIX, committed);
        System.out.printf(
            "frozen relay: the first row after SIGSTOP arrived %d ms later through the standby;"
                + " %d rows, %d duplicates read_committed; woken relay %s%n",
            takeoverMs,
            committed.size(),
            duplicates,
            active.isAlive()
                ? "alive: " + active.health()
                : "exited " + active.awaitExit(Duration.ZERO));
        assertThat(duplicates).as("duplicates read_committed").isZero();
        assertThat(standby.isStreaming()).as("the standby still streams").isTrue();
        assertThat(Files.readString(standby.log()))
            .as("the standby's slot check found the offsets in Kafka")
            .contains("offsetsStored=true offsetsIn=kafka:");
      } finally {
        if (active.isAlive()) {
          active.signal("CONT");
        }
      }
    }
  }

  private static AlertEvent write(Connection c, String service, Map<String, String> committed)
      throws Exception {
    AlertEvent event = RelayFixture.insertNext(c, PREFIX + service);
    committed.put(event.eventId().toString(), event.service());
    return event;
  }
}
