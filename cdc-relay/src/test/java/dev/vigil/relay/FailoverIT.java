package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.relay.ops.RelayStatus;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Relays killed with SIGKILL in separate JVMs; a hot standby; the replacement resumes. */
@ExtendWith(VigilInfraExtension.class)
class FailoverIT {

  @Test
  void relayKilledMidStreamAndRestartedLosesNothingAndRepeatsOnlyTheUnackedTail(
      TestDatabase db, TestKafka kafka) throws Exception {
    RelayFixture.migrateMonitor(db);
    RelayFixture.createSequenceTable(db);
    String topic = kafka.uniqueName("alerts");
    Map<String, String> env =
        RelayFixture.env(db, kafka, RelayFixture.uniqueSlot("kill"), topic, "first");

    try (RelayProcess first = RelayProcess.start(env, "first")) {
      await().atMost(Duration.ofSeconds(60)).until(first::isStreaming);
      try (TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic);
          // Open-ended, paced at 1,000 rows/s: it stops only 1,000 rows after the kill, so the
          // kill lands while rows are written however long the first delivery took.
          LoadWriter writer = LoadWriter.openEnded(db, "kill-", 20, 2, 1_000)) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Deliveries.ids(reader.poll(), "kill-").size() >= 300);
        int writtenAtKill = writer.written();
        first.kill();
        writer.stopAfterMoreRows(1_000);

        try (RelayProcess second = RelayProcess.start(env, "second")) {
          await().atMost(Duration.ofSeconds(60)).until(second::isStreaming);
          Map<String, String> committed = writer.awaitDone();
          await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> Deliveries.ids(reader.poll(), "kill-").size() == committed.size());
          int duplicates = Deliveries.verify(reader.poll(), "kill-", committed);
          System.out.printf(
              "kill -9: %d rows committed (%d before the kill), %d duplicates after restart%n",
              committed.size(), writtenAtKill, duplicates);
          // At most the batch in flight plus one acknowledged batch whose offsets were not stored.
          assertThat(duplicates).isLessThanOrEqualTo(2 * 2_048);

          assertThat(second.terminate()).as("exit code after SIGTERM").isZero();
        }
      }
    }
  }

  @Test
  void standbyTakesOverWithinFifteenSecondsWhenTheActiveRelayIsKilled(
      TestDatabase db, TestKafka kafka) throws Exception {
    RelayFixture.migrateMonitor(db);
    RelayFixture.createSequenceTable(db);
    String topic = kafka.uniqueName("alerts");
    String slot = RelayFixture.uniqueSlot("standby");

    try (RelayProcess active =
        RelayProcess.start(RelayFixture.env(db, kafka, slot, topic, "active"), "active")) {
      await().atMost(Duration.ofSeconds(60)).until(active::isStreaming);
      try (RelayService standby =
              RelayService.start(
                  RelayFixture.config(RelayFixture.env(db, kafka, slot, topic, "standby")));
          TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic);
          LoadWriter writer = new LoadWriter(db, "standby-", 20, 2, 3_000)) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Deliveries.ids(reader.poll(), "standby-").size() >= 500);
        assertThat(standby.status().state()).isEqualTo(RelayStatus.State.STANDBY);
        assertThat(active.isStreaming()).isTrue();

        active.kill();
        long killed = System.nanoTime();
        await()
            .atMost(Duration.ofSeconds(15))
            .pollInterval(Duration.ofMillis(50))
            .until(() -> standby.status().state() == RelayStatus.State.STREAMING);
        long takeoverMs = (System.nanoTime() - killed) / 1_000_000;

        Map<String, String> committed = writer.awaitDone();
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Deliveries.ids(reader.poll(), "standby-").size() == committed.size());
        int duplicates = Deliveries.verify(reader.poll(), "standby-", committed);
        System.out.printf(
            "standby: streaming %d ms after the active relay was killed; %d rows, %d duplicates%n",
            takeoverMs, committed.size(), duplicates);
      }
    }
  }
}
