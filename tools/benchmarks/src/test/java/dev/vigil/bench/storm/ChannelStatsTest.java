package dev.vigil.bench.storm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ChannelStatsTest {
  private static final long T0 = 1_000_000_000_000L;
  private static final Set<String> SERVICES = Set.of("a", "b", "c");

  private static VendorMessages.Message at(double seconds, Set<String> down, Set<String> up) {
    return new VendorMessages.Message(T0 + (long) (seconds * 1e6), down, up);
  }

  @Test
  void aFlipCountsItsMessagesTheServicesNamedAndThoseNamedAfterTwoMinutes() {
    List<VendorMessages.Message> messages =
        List.of(
            at(-5, Set.of("x"), Set.of()), // before the flip
            at(10, Set.of("a", "b"), Set.of()),
            at(11, Set.of("a"), Set.of()), // named again: counts once
            at(130, Set.of("c"), Set.of()),
            at(400, Set.of(), Set.of("a"))); // after the window

    Map<String, Double> m =
        ChannelStats.flip(
            messages, List.of(T0 + 12_000_000L), SERVICES, "FAILED", T0, T0 + 300_000_000L);

    assertThat(m.get("messages")).isEqualTo(3.0);
    assertThat(m.get("first_message_s")).isEqualTo(10.0);
    assertThat(m.get("last_message_s")).isEqualTo(130.0);
    assertThat(m.get("services_named")).isEqualTo(3.0);
    assertThat(m.get("named_within_2min")).isEqualTo(2.0);
    assertThat(m.get("missing")).isZero();
    assertThat(m.get("over_limit")).isEqualTo(1.0);
    assertThat(m.get("min_gap_s")).isEqualTo(1.0);
  }

  @Test
  void aServiceMissesWhenNoMessageNamesItAndRecoveredBeforeDownIsAnOrderViolation() {
    List<VendorMessages.Message> messages =
        List.of(
            at(1, Set.of("a"), Set.of("b")), // b RECOVERED before any DOWN
            at(2, Set.of("b"), Set.of()),
            at(3, Set.of("c"), Set.of("c")), // c in the same message: not after its DOWN
            at(4, Set.of(), Set.of("a")));

    assertThat(ChannelStats.flip(messages, List.of(), SERVICES, "RECOVERED", T0, T0 + 10_000_000L))
        .containsEntry("services_named", 3.0)
        .containsEntry("missing", 0.0);
    assertThat(
            ChannelStats.flip(
                messages, List.of(), Set.of("a", "z"), "FAILED", T0, T0 + 10_000_000L))
        .containsEntry("missing", 1.0);
    assertThat(ChannelStats.orderViolations(messages)).isEqualTo(2);
  }
}
