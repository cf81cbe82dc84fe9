package dev.vigil.relay.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TransactionBoundaryTest {

  @Test
  void anOffsetAtACommitIsSafe() {
    assertThat(TransactionBoundary.isSafe(offset("COMMIT", 300L, 300L))).isTrue();
  }

  @Test
  void aChangeInsideATransactionIsNotEvenAtTheLsnOfThePreviousCommit() {
    // A COPY multi-insert record right after the previous commit: its events share that LSN.
    assertThat(TransactionBoundary.isSafe(offset("INSERT", 200L, 100L))).isFalse();
    assertThat(TransactionBoundary.isSafe(offset("INSERT", 100L, 100L))).isFalse();
    assertThat(TransactionBoundary.isSafe(offset("BEGIN", 100L, 100L))).isFalse();
  }

  @Test
  void anOffsetWithoutAProcessedPositionOrWithAStaleCommitIsNotSafe() {
    assertThat(TransactionBoundary.isSafe(offset("COMMIT", null, null))).isFalse();
    assertThat(TransactionBoundary.isSafe(offset("COMMIT", 300L, 100L))).isFalse();
    assertThat(TransactionBoundary.isSafe(null)).isFalse();
    assertThat(TransactionBoundary.isSafe(Map.of())).isFalse();
  }

  @Test
  void initialSnapshotPositionsAreSafe() {
    assertThat(TransactionBoundary.isSafe(Map.of("snapshot", "INITIAL", "lsn", 5L))).isTrue();
    assertThat(TransactionBoundary.isSafe(Map.of("snapshot", "INCREMENTAL", "lsn", 5L))).isFalse();
  }

  @Test
  void aBatchIsMarkedUpToItsLastCommitOnly() {
    List<Map<String, ?>> batch =
        List.of(
            offset("INSERT", 110L, 100L),
            offset("COMMIT", 120L, 120L),
            offset("BEGIN", 130L, 120L),
            offset("INSERT", 140L, 120L));
    assertThat(TransactionBoundary.lastSafeIndex(batch, o -> o)).isEqualTo(1);
    assertThat(TransactionBoundary.lastSafeIndex(batch.subList(2, 4), o -> o)).isEqualTo(-1);
  }

  private static Map<String, Object> offset(String type, Long processed, Long commit) {
    Map<String, Object> offset = new HashMap<>();
    offset.put("messageType", type);
    offset.put("lsn", processed);
    if (processed != null) {
      offset.put("lsn_proc", processed);
    }
    if (commit != null) {
      offset.put("lsn_commit", commit);
    }
    return offset;
  }
}
