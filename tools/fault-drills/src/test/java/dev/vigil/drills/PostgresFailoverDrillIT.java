package dev.vigil.drills;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.drills.reconcile.DrillCounts;
import dev.vigil.drills.reconcile.FaultRecord;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code postgres-failover} drill at the short drill's sizes: PostgreSQL as a primary and a
 * synchronous standby, the primary killed with SIGKILL once the relay's failover slot is synced,
 * the standby promoted. Results go to {@code target/postgres-failover-drill/short-drill.md}.
 */
class PostgresFailoverDrillIT {

  @Test
  void aPrimaryFailoverLosesNothingStoresNothingTwiceAndKeepsOrder() {
    DrillOptions options = DrillOptions.quick().onlyDrills(List.of(Drills.POSTGRES_FAILOVER));
    List<DrillResult> results =
        DrillMain.runAndReport(
            options,
            Path.of("target"),
            Path.of("target", "postgres-failover-drill"),
            DrillMain.FULL_COMMAND.replace("--full", "--short --drills postgres-failover"));

    assertThat(results).extracting(DrillResult::drill).containsExactly(Drills.POSTGRES_FAILOVER);
    DrillResult result = results.getFirst();
    assertThat(result.error()).as("error").isNull();
    assertThat(result.faults())
        .as("the failover happened and events flowed again after it")
        .singleElement()
        .satisfies(fault -> assertThat(fault.receiverRecoveryMs()).isGreaterThanOrEqualTo(0))
        .extracting(FaultRecord::fault)
        .asString()
        .contains("postgres primary kill -9");
    DrillCounts counts = result.counts();
    assertThat(counts.eventsCommitted()).isGreaterThanOrEqualTo(options.minEventsPerDrill());
    assertThat(counts.notInOutbox()).as("committed but not in outbox").isZero();
    assertThat(counts.kafkaMissing()).as("missing on Kafka").isZero();
    assertThat(counts.lost()).as("lost").isZero();
    assertThat(counts.storedTwice()).as("stored twice").isZero();
    assertThat(counts.kafkaOrderViolations()).as("order violations on Kafka").isZero();
    assertThat(counts.receiverOrderViolations()).as("order violations at the receiver").isZero();
    assertThat(counts.delivered()).as("delivered").isEqualTo(counts.eventsCommitted());
  }
}
