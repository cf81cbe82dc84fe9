package dev.vigil.relay.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class StoredPositionCheckTest {
  private static final long GB = 1L << 30;
  private static final ServerIdentity SERVER = new ServerIdentity("7300000000000000001", 2, 5 * GB);
  private static final StoredPositionCheck.Switchpoints TIMELINE_1_ENDED_AT_4GB =
      ancestor -> ancestor == 1 ? OptionalLong.of(4 * GB) : OptionalLong.empty();

  @Test
  void aPositionTheServerHasWrittenOnItsOwnTimelineIsAccepted() throws Exception {
    assertThat(problem(3 * GB, origin("7300000000000000001", 2))).isEmpty();
    assertThat(problem(5 * GB, origin("7300000000000000001", 2))).isEmpty();
  }

  @Test
  void aPositionAheadOfTheServersWalIsRefusedNamingBothPositions() throws Exception {
    assertThat(problem(5 * GB + 1, origin("7300000000000000001", 2)))
        .hasValueSatisfying(
            p ->
                assertThat(p)
                    .contains("stored position 1/40000001")
                    .contains("current WAL position 1/40000000"));
  }

  @Test
  void offsetsStoredBeforeTheOriginWasKeptAreCheckedByPositionOnly() throws Exception {
    assertThat(problem(3 * GB, Optional.empty())).isEmpty();
    assertThat(problem(6 * GB, Optional.empty())).isPresent();
  }

  @Test
  void anotherClusterIsRefused() throws Exception {
    assertThat(problem(1, origin("7300000000000000009", 2)))
        .hasValueSatisfying(p -> assertThat(p).contains("7300000000000000009"));
  }

  @Test
  void anEarlierTimelineIsAcceptedUpToWhereTheServerLeftIt() throws Exception {
    assertThat(problem(4 * GB, origin("7300000000000000001", 1))).isEmpty();
    assertThat(problem(4 * GB + 1, origin("7300000000000000001", 1)))
        .hasValueSatisfying(p -> assertThat(p).contains("timeline 1").contains("1/0"));
  }

  @Test
  void aTimelineOutsideTheServersHistoryIsRefused() throws Exception {
    assertThat(problem(1, origin("7300000000000000001", 3))).isPresent();
    StoredPositionCheck.Switchpoints none = ancestor -> OptionalLong.empty();
    assertThat(StoredPositionCheck.problem(1, origin("7300000000000000001", 1), SERVER, none))
        .isPresent();
  }

  @Test
  void timelineHistoryTextAndLsnsAreReadAsPostgresWritesThem() {
    String history = "1\t0/3000000\tno recovery target specified\n\n2\t1/A0\tbefore 2000-01-01\n";
    assertThat(ServerIdentity.switchpoint(history, 1)).hasValue(0x3000000L);
    assertThat(ServerIdentity.switchpoint(history, 2)).hasValue((1L << 32) | 0xA0);
    assertThat(ServerIdentity.switchpoint(history, 3)).isEmpty();
    assertThat(ServerIdentity.parseLsn("16/B374D848")).isEqualTo(0x16B374D848L);
    assertThat(ServerIdentity.lsn(0x16B374D848L)).isEqualTo("16/B374D848");
  }

  @Test
  void exactlyOnceOnAFailoverSlotWithoutSynchronizedStandbySlotsIsWarnedAbout() {
    assertThat(SlotFailover.unprotectedFailover(SlotFailover.Outcome.ALREADY, true, "")).isTrue();
    assertThat(SlotFailover.unprotectedFailover(SlotFailover.Outcome.WILL_CREATE, true, null))
        .isTrue();
    assertThat(SlotFailover.unprotectedFailover(SlotFailover.Outcome.ALREADY, true, "standby1"))
        .isFalse();
    assertThat(SlotFailover.unprotectedFailover(SlotFailover.Outcome.ALREADY, false, "")).isFalse();
    assertThat(SlotFailover.unprotectedFailover(SlotFailover.Outcome.DISABLED, true, "")).isFalse();
  }

  private static Optional<String> problem(long stored, Optional<StoredPositionCheck.Origin> origin)
      throws Exception {
    return StoredPositionCheck.problem(stored, origin, SERVER, TIMELINE_1_ENDED_AT_4GB);
  }

  private static Optional<StoredPositionCheck.Origin> origin(String systemId, int timeline) {
    return Optional.of(new StoredPositionCheck.Origin(systemId, timeline));
  }
}
