package dev.vigil.drills;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.drills.reconcile.DrillCounts;
import dev.vigil.drills.reconcile.FaultRecord;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code connect-worker-kill} drill at the short drill's sizes: the shipped connector on a
 * Kafka Connect worker process in place of the relays, the worker killed with SIGKILL mid-stream
 * and restarted. Opt-in ({@code -Dvigil.drills.connect.exclude=none}); results go to {@code
 * target/connect-worker-drill/short-drill.md}.
 */
class ConnectWorkerKillDrillIT {

  @Test
  void aKilledConnectWorkerLosesNothingDuplicatesNothingReadCommittedAndKeepsOrder() {
    DrillOptions options = DrillOptions.quick().onlyDrills(List.of(Drills.CONNECT_WORKER_KILL));
    List<DrillResult> results =
        DrillMain.runAndReport(
            options,
            Path.of("target"),
            Path.of("target", "connect-worker-drill"),
            DrillMain.FULL_COMMAND.replace("--full", "--short --drills connect-worker-kill"));

    assertThat(results).extracting(DrillResult::drill).containsExactly(Drills.CONNECT_WORKER_KILL);
    DrillResult result = results.getFirst();
    assertThat(result.error()).as("error").isNull();
    assertThat(result.faults())
        .as("the worker was killed with SIGKILL and events flowed again after it")
        .singleElement()
        .satisfies(fault -> assertThat(fault.receiverRecoveryMs()).isGreaterThanOrEqualTo(0))
        .satisfies(fault -> assertThat(fault.exitCode()).isEqualTo(137))
        .extracting(FaultRecord::fault)
        .asString()
        .contains("kill -9 connect-worker");
    DrillCounts counts = result.counts();
    assertThat(counts.eventsCommitted()).isGreaterThanOrEqualTo(options.minEventsPerDrill());
    assertThat(counts.kafkaDuplicates()).as("duplicates read_committed").isZero();
    assertThat(counts.kafkaMissing()).as("missing on Kafka").isZero();
    assertThat(counts.lost()).as("lost").isZero();
    assertThat(counts.storedTwice()).as("stored twice").isZero();
    assertThat(counts.kafkaOrderViolations()).as("order violations on Kafka").isZero();
    assertThat(counts.receiverOrderViolations()).as("order violations at the receiver").isZero();
    assertThat(counts.delivered()).as("delivered").isEqualTo(counts.eventsCommitted());
    assertThat(result.passed()).isTrue();
  }
}
