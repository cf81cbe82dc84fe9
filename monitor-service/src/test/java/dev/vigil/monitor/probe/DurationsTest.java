package dev.vigil.monitor.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {
  @Test
  void durationsReadLikeTheTargetsFile() {
    assertThat(Durations.human(Duration.ofMinutes(2))).isEqualTo("2m");
    assertThat(Durations.human(Duration.ofSeconds(150))).isEqualTo("2m30s");
    assertThat(Durations.human(Duration.ofHours(24).plusSeconds(30))).isEqualTo("24h30s");
    assertThat(Durations.human(Duration.ofMillis(400))).isEqualTo("400ms");
    assertThat(Durations.human(Duration.ofSeconds(-5))).isEqualTo("0ms");
  }
}
