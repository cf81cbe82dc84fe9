package dev.vigil.drills;

import static org.assertj.core.api.Assertions.assertThat;

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
    DrillResult result =
        ShortSingleDrill.runAndCheck(
            Drills.CONNECT_WORKER_KILL, "connect-worker-drill", "kill -9 connect-worker");

    assertThat(result.faults().getFirst().exitCode()).as("ended by SIGKILL").isEqualTo(137);
    assertThat(result.counts().kafkaDuplicates()).as("duplicates read_committed").isZero();
    assertThat(result.passed()).isTrue();
  }
}
