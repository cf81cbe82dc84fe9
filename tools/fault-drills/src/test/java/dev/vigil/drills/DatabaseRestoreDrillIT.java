package dev.vigil.drills;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The {@code database-restore} drill at the short drill's sizes: PostgreSQL's data folder copied
 * while relaying and restored after more rows were relayed; the relay must refuse to start (exit
 * 3), and after the documented way out every event committed after the restore arrives once. Opt-in
 * ({@code -Dvigil.drills.relay.exclude=none}; cdc-relay's DatabaseRestoreIT proves the refusal in
 * the default run); results go to {@code target/database-restore-drill/short-drill.md}.
 */
class DatabaseRestoreDrillIT {

  @Test
  void aRestoredDatabaseIsRefusedAndNothingCommittedAfterTheRestoreIsLost() {
    DrillResult result =
        ShortSingleDrill.runAndCheck(
            RelayDrills.DATABASE_RESTORE, "database-restore-drill", "database restored");

    assertThat(result.faults().getFirst().exitCode()).as("refused: exit 3").isEqualTo(3);
    assertThat(result.notes()).anyMatch(n -> n.contains("refusing to start"));
    assertThat(result.counts().kafkaDuplicates()).as("duplicates read_committed").isZero();
    assertThat(result.passed()).isTrue();
  }
}
