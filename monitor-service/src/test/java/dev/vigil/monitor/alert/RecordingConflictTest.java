package dev.vigil.monitor.alert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.kit.db.DatabaseException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Which failures make the recorder do a transaction again rather than fail a result. */
class RecordingConflictTest {

  @Test
  void deadlocksAndSerializationFailuresAreConflictsWhereverTheyAreWrapped() {
    SQLException deadlock = new SQLException("deadlock detected", "40P01");
    assertThat(RecordingTransactions.conflict(deadlock)).isTrue();
    assertThat(
            RecordingTransactions.conflict(
                new DatabaseException("recording result of api", deadlock)))
        .isTrue();
    assertThat(RecordingTransactions.conflict(new SQLException("could not serialize", "40001")))
        .isTrue();
  }

  @Test
  void anyOtherFailureIsNot() {
    assertThat(RecordingTransactions.conflict(new SQLException("fk", "23503"))).isFalse();
    assertThat(RecordingTransactions.conflict(new SQLException("no state"))).isFalse();
    assertThat(RecordingTransactions.conflict(new IllegalStateException("x"))).isFalse();
  }
}
