package dev.vigil.monitor.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.monitor.status.StatusReads.CheckRow;
import dev.vigil.monitor.status.StatusReads.HourRow;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChartTest {
  private static final Instant NOW = Instant.parse("2026-11-30T12:34:56Z");

  @Test
  void hourlyChartPlacesEachHourInItsSlotAndMarksHoursWithDownChecks() {
    Instant thisHour = Instant.parse("2026-11-30T12:00:00Z");
    Chart chart =
        Chart.hourly(
            "web",
            List.of(
                new HourRow("web", thisHour.minus(Duration.ofHours(23)), 10, 0, 100L),
                new HourRow("other", thisHour, 10, 0, 900L),
                new HourRow("web", thisHour.minus(Duration.ofHours(30)), 10, 0, 50L),
                new HourRow("web", thisHour, 8, 2, 200L)),
            NOW,
            240,
            40);
    // first slot at the left edge, last at the right; the top is the largest latency (200 ms)
    assertThat(chart.line()).isEqualTo("4.0,20.0 236.0,4.0");
    assertThat(chart.downs()).extracting(Chart.Mark::x).containsExactly("236.0");
    assertThat(chart.peak()).isEqualTo("200 ms");
    assertThat(chart.empty()).isFalse();
  }

  @Test
  void checksChartRunsOldestToNewestAndMarksDownChecks() {
    Chart chart =
        Chart.checks(
            "web",
            List.of(
                new CheckRow(3, "DOWN", NOW, null, null, "timeout", "probe"),
                new CheckRow(2, "UP", NOW.minusSeconds(10), 50L, 200, null, "probe"),
                new CheckRow(1, "UP", NOW.minusSeconds(20), 100L, 200, null, "probe")),
            100,
            50);
    assertThat(chart.line()).isEqualTo("4.0,4.0 50.0,25.0");
    assertThat(chart.downs()).extracting(Chart.Mark::x).containsExactly("96.0");
    assertThat(chart.downs().get(0).label()).startsWith("DOWN at 2026-11-30 12:34:56 UTC");
  }

  @Test
  void nothingToDrawIsEmpty() {
    assertThat(Chart.checks("web", List.of(), 100, 50).empty()).isTrue();
    assertThat(Chart.hourly("web", List.of(), NOW, 100, 50).empty()).isTrue();
  }
}
