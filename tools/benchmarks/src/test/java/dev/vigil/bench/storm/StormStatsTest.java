package dev.vigil.bench.storm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class StormStatsTest {
  private static final long T0 = 1_000_000_000_000L;
  private final UUID f1 = UUID.randomUUID();
  private final UUID f2 = UUID.randomUUID();
  private final UUID r1 = UUID.randomUUID();
  private final UUID r2 = UUID.randomUUID();
  private final List<StormEvent> events =
      List.of(
          new StormEvent(f1, "a", "FAILED", T0, 1),
          new StormEvent(f2, "b", "FAILED", T0 + 1_000_000, 2),
          new StormEvent(r1, "a", "RECOVERED", T0 + 30_000_000, 3),
          new StormEvent(r2, "b", "RECOVERED", T0 + 30_000_000, 4));

  @Test
  void delayRunsFromEachEventsThresholdCrossingToItsFirstArrival() {
    Map<UUID, Long> arrivals = Map.of(f1, T0 + 2_000_000, f2, T0 + 17_000_000);

    Map<String, Double> m = StormStats.delays(events, "FAILED", arrivals, T0 - 20_000_000);

    assertThat(m.get("events")).isEqualTo(2.0);
    assertThat(m.get("delivered")).isEqualTo(2.0);
    assertThat(m.get("missing")).isZero();
    assertThat(m.get("max_ms")).isBetween(15_990.0, 16_010.0); // 16 s after its own occurredAt
    assertThat(m.get("p50_ms")).isBetween(1_999.0, 2_001.0);
    assertThat(m.get("over_aim")).isEqualTo(1.0);
    assertThat(m.get("flip_to_last_s")).isEqualTo(37.0);
  }

  @Test
  void anEventThatNeverArrivedIsMissingAndMissesTheAim() {
    Map<String, Double> m =
        StormStats.delays(events, "RECOVERED", Map.of(r1, T0 + 31_000_000), T0 + 29_000_000);

    assertThat(m.get("events")).isEqualTo(2.0);
    assertThat(m.get("delivered")).isEqualTo(1.0);
    assertThat(m.get("missing")).isEqualTo(1.0);
    assertThat(m.get("over_aim")).isEqualTo(1.0);
  }

  @Test
  void aServiceWhoseRecoveredArrivedBeforeItsFailedIsOutOfOrder() {
    Map<String, List<UUID>> arrived = Map.of("a", List.of(r1, f1), "b", List.of(f2, r2));

    assertThat(StormStats.servicesOutOfOrder(events, arrived::get)).isEqualTo(1);
  }

  @Test
  void servicesInCommitOrderOrWithAMissingEventAreNotOutOfOrder() {
    Map<String, List<UUID>> arrived = Map.of("a", List.of(f1, r1), "b", List.of(r2));

    assertThat(StormStats.servicesOutOfOrder(events, arrived::get)).isZero();
  }
}
