package dev.vigil.drills.dependencies;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class VerdictsTest {
  private static final Duration ANNOUNCE = Duration.ofSeconds(10);

  @Test
  void theSilenceEndPassesWithinOneAnnounceInterval() {
    assertThat(Verdicts.silenceEnd(1, 0, 9_900, 10_500, ANNOUNCE)).isTrue();
    assertThat(Verdicts.silenceEnd(1, 0, 10_100, 10_500, ANNOUNCE))
        .as("committed after one interval")
        .isFalse();
    assertThat(Verdicts.silenceEnd(1, 0, 9_000, 12_100, ANNOUNCE))
        .as("received after the delivery allowance")
        .isFalse();
    assertThat(Verdicts.silenceEnd(1, 0, -1, -1, ANNOUNCE)).as("never committed").isFalse();
    assertThat(Verdicts.silenceEnd(1, 1, 900, 1_000, ANNOUNCE))
        .as("a service in the window paged")
        .isFalse();
  }

  @Test
  void theStormPassesWithOnePagePerParent() {
    assertThat(Verdicts.storm(10, 0, 10)).isTrue();
    assertThat(Verdicts.storm(9, 0, 10)).isFalse();
    assertThat(Verdicts.storm(10, 1, 10)).isFalse();
  }
}
