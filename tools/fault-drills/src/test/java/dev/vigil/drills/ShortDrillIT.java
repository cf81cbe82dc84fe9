package dev.vigil.drills;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.drills.reconcile.DrillCounts;
import dev.vigil.drills.reconcile.FaultRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The short fault drill ({@link DrillOptions#quick()}): real relay, notifier, receiver (and, for
 * the input sweep, monitor) processes, real PostgreSQL and Kafka, fewer events and faults than the
 * full drill. Results go to {@code target/short-drill.md}.
 */
class ShortDrillIT {

  @Test
  void underKillsRestartsAndAMisbehavingReceiverNothingIsLostStoredTwiceOrReordered() {
    DrillOptions options = DrillOptions.quick();
    List<DrillResult> results =
        DrillMain.runAndReport(
            options,
            Path.of("target"),
            Path.of("target"),
            DrillMain.FULL_COMMAND.replace("--full", "--short"));
    Map<String, DrillResult> byName =
        results.stream().collect(Collectors.toMap(DrillResult::drill, Function.identity()));

    assertThat(byName)
        .containsOnlyKeys(
            "relay-failover",
            "bulk-transactions",
            "kafka-restart",
            "postgres-restart",
            "notifier-kill",
            "receiver-chaos",
            "hostile-records",
            "relay-freeze",
            "bad-input-sweep");
    SoftAssertions soft = new SoftAssertions();
    for (DrillResult result : results) {
      String drill = result.drill();
      soft.assertThat(result.error()).as(drill + " error").isNull();
      DrillCounts counts = result.counts();
      soft.assertThat(counts).as(drill + " counts").isNotNull();
      if (counts == null) {
        continue;
      }
      soft.assertThat(counts.eventsCommitted())
          .as(drill + " events committed")
          .isGreaterThanOrEqualTo(options.minEventsPerDrill());
      soft.assertThat(counts.notInOutbox()).as(drill + " committed but not in outbox").isZero();
      soft.assertThat(counts.kafkaMissing()).as(drill + " missing on Kafka").isZero();
      soft.assertThat(counts.lost()).as(drill + " lost").isZero();
      soft.assertThat(counts.storedTwice()).as(drill + " stored twice").isZero();
      soft.assertThat(counts.kafkaOrderViolations())
          .as(drill + " order violations on Kafka")
          .isZero();
      soft.assertThat(counts.receiverOrderViolations())
          .as(drill + " order violations at the receiver")
          .isZero();
      soft.assertThat(counts.delivered())
          .as(drill + " delivered")
          .isEqualTo(counts.eventsCommitted());
      soft.assertThat(result.faults()).as(drill + " faults injected").isNotEmpty();
    }
    soft.assertThat(byName.get("relay-failover").sigkills())
        .as("failover kills ended by SIGKILL")
        .isEqualTo(options.relayKills());
    soft.assertThat(byName.get("bulk-transactions").sigkills())
        .as("relay kills inside bulk transactions ended by SIGKILL")
        .isEqualTo(options.bulkTransactionKills());
    soft.assertThat(byName.get("notifier-kill").sigkills())
        .as("notifier kills ended by SIGKILL")
        .isEqualTo(options.notifierKills());
    soft.assertThat(byName.get("relay-freeze").counts().kafkaDuplicates())
        .as("the woken relay wrote nothing a read_committed reader sees")
        .isZero();
    soft.assertThat(byName.get("relay-freeze").faults())
        .as("the standby took over within the bound (the fault's outage is the takeover)")
        .allSatisfy(
            f ->
                assertThat(f.outageMs())
                    .isLessThanOrEqualTo(RelayDrills.TAKEOVER_BOUND.toMillis()));
    soft.assertThat(byName.get("receiver-chaos").chaos())
        .as("receiver misbehaviour actually hit requests")
        .containsKeys("UNAVAILABLE", "SLOW", "TOO_MANY_REQUESTS", "RESET_BEFORE", "RESET_AFTER");
    for (DrillResult result : results) {
      for (FaultRecord fault : result.faults()) {
        soft.assertThat(fault.receiverRecoveryMs())
            .as(result.drill() + " " + fault.fault() + ": events flowed again after the fault")
            .isGreaterThanOrEqualTo(0);
      }
    }
    soft.assertAll();
  }
}
