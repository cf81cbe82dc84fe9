package dev.vigil.relay.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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

  @Test
  void aCommitIsReadBackWithoutItsProcessedPositionSoDebeziumDoesNotSearch() {
    Map<String, Object> commit = offset("COMMIT", 300L, 300L);
    commit.put("txId", 77L);
    Map<String, Object> resumed = new HashMap<>(TransactionBoundary.forRestart(commit));
    assertThat(resumed)
        .doesNotContainKey("lsn_proc")
        .containsEntry("lsn", 300L)
        .containsEntry("lsn_commit", 300L)
        .containsEntry("messageType", "COMMIT")
        .containsEntry("txId", 77L);
    assertThat(commit).as("the stored offset itself is untouched").containsKey("lsn_proc");
  }

  @Test
  void everyOtherOffsetIsReadBackUnchanged() {
    for (Map<String, ?> other :
        List.<Map<String, ?>>of(
            offset("INSERT", 200L, 100L),
            offset("BEGIN", 100L, 100L),
            offset("COMMIT", 300L, 100L),
            Map.of("snapshot", "INITIAL", "lsn", 5L, "lsn_proc", 5L, "lsn_commit", 5L))) {
      assertThat(TransactionBoundary.forRestart(other)).isSameAs(other);
    }
    Map<String, Object> commitAtAnotherLsn = offset("COMMIT", 300L, 300L);
    commitAtAnotherLsn.put("lsn", 290L);
    assertThat(TransactionBoundary.forRestart(commitAtAnotherLsn)).isSameAs(commitAtAnotherLsn);
    assertThat(TransactionBoundary.forRestart((Map<String, ?>) null)).isNull();
  }

  @Test
  void storedBytesOfACommitAreRewrittenAndAnythingElsePassesThrough() {
    ByteBuffer commit =
        bytes(
            "{\"lsn_proc\":300,\"messageType\":\"COMMIT\",\"lsn_commit\":300,\"lsn\":300,"
                + "\"txId\":77,\"ts_usec\":1764000000000000}");
    assertThat(text(TransactionBoundary.forRestart(commit)))
        .isEqualTo(
            "{\"messageType\":\"COMMIT\",\"lsn_commit\":300,\"lsn\":300,\"txId\":77,"
                + "\"ts_usec\":1764000000000000}");
    assertThat(text(commit)).as("the buffer read from the store").startsWith("{\"lsn_proc\":300");

    for (String other :
        List.of(
            "{\"lsn_proc\":300,\"messageType\":\"INSERT\",\"lsn_commit\":200,\"lsn\":300}",
            "not json \u0000",
            "[1,2]",
            "\"COMMIT\"",
            "")) {
      ByteBuffer stored = bytes(other);
      assertThat(TransactionBoundary.forRestart(stored)).isSameAs(stored);
    }
    assertThat(TransactionBoundary.forRestart((ByteBuffer) null)).isNull();
  }

  private static ByteBuffer bytes(String text) {
    return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
  }

  private static String text(ByteBuffer buffer) {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
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
