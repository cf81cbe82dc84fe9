package dev.vigil.monitor.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class FormatTest {
  @Test
  void durationsReadLikeAPersonWouldSayThem() {
    assertThat(Format.duration(Duration.ofSeconds(12))).isEqualTo("12s");
    assertThat(Format.duration(Duration.ofSeconds(252))).isEqualTo("4m 12s");
    assertThat(Format.duration(Duration.ofMinutes(65))).isEqualTo("1h 5m");
    assertThat(Format.duration(Duration.ofHours(51))).isEqualTo("2d 3h");
    assertThat(Format.duration(Duration.ofSeconds(-5))).isEqualTo("0s");
  }

  @Test
  void timesAreUtcWithTheZoneSaid() {
    assertThat(Format.time(Instant.parse("2026-11-30T07:05:09.999Z")))
        .isEqualTo("2026-11-30 07:05:09 UTC");
    assertThat(Format.time(null)).isEmpty();
  }

  @Test
  void outsideTextLosesControlCharactersAndIsBounded() {
    assertThat(Format.text("a\u0000b\u001bc", 100)).isEqualTo("a\\u0000b\\u001bc");
    assertThat(Format.text("x".repeat(10_000), Format.MAX_ERROR))
        .hasSize(Format.MAX_ERROR + 1)
        .endsWith("…");
    assertThat(Format.text(null, 10)).isNull();
  }
}
