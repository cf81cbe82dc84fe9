package dev.vigil.drills;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.drills.reconcile.DrillCounts;
import dev.vigil.drills.reconcile.FaultRecord;
import java.nio.file.Path;
import java.util.List;

/**
 * Runs one drill at the short drill's sizes, for the opt-in drill ITs, and checks what all pass.
 */
final class ShortSingleDrill {
  private ShortSingleDrill() {}

  /**
   * Runs {@code drill} (results under {@code target/<resultsDir>/short-drill.md}) and asserts: no
   * error, exactly one fault whose description contains {@code fault} and after which events
   * reached the receiver again, at least the short drill's events, and nothing missing, lost,
   * stored twice or out of order.
   *
   * @return the result, for the drill's own assertions
   */
  static DrillResult runAndCheck(String drill, String resultsDir, String fault) {
    DrillOptions options = DrillOptions.quick().onlyDrills(List.of(drill));
    List<DrillResult> results =
        DrillMain.runAndReport(
            options,
            Path.of("target"),
            Path.of("target", resultsDir),
            DrillMain.FULL_COMMAND.replace("--full", "--short --drills " + drill));

    assertThat(results).extracting(DrillResult::drill).containsExactly(drill);
    DrillResult result = results.getFirst();
    assertThat(result.error()).as("error").isNull();
    assertThat(result.faults())
        .as("the fault happened and events flowed again after it")
        .singleElement()
        .satisfies(f -> assertThat(f.receiverRecoveryMs()).isGreaterThanOrEqualTo(0))
        .extracting(FaultRecord::fault)
        .asString()
        .contains(fault);
    DrillCounts counts = result.counts();
    assertThat(counts.eventsCommitted()).isGreaterThanOrEqualTo(options.minEventsPerDrill());
    assertThat(counts.notInOutbox()).as("committed but not in outbox").isZero();
    assertThat(counts.kafkaMissing()).as("missing on Kafka").isZero();
    assertThat(counts.lost()).as("lost").isZero();
    assertThat(counts.storedTwice()).as("stored twice").isZero();
    assertThat(counts.kafkaOrderViolations()).as("order violations on Kafka").isZero();
    assertThat(counts.receiverOrderViolations()).as("order violations at the receiver").isZero();
    assertThat(counts.delivered()).as("delivered").isEqualTo(counts.eventsCommitted());
    return result;
  }
}
