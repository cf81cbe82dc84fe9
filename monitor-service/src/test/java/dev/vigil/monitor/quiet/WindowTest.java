package dev.vigil.monitor.quiet;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The quiet decision as a pure function of (window, instant), including DST changes. */
class WindowTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  private static Window window(Set<DayOfWeek> days, String start, Duration length) {
    return new Window(days, LocalTime.parse(start), length, BERLIN);
  }

  @Test
  void coversFromStartInclusiveToEndExclusive() {
    // Wednesday 2026-01-07, CET (UTC+1): 02:00 local is 01:00Z.
    Window window = window(Set.of(DayOfWeek.WEDNESDAY), "02:00", Duration.ofHours(2));
    assertThat(window.coveringEnd(Instant.parse("2026-01-07T00:59:59Z"))).isEmpty();
    assertThat(window.coveringEnd(Instant.parse("2026-01-07T01:00:00Z")))
        .contains(Instant.parse("2026-01-07T03:00:00Z"));
    assertThat(window.coveringEnd(Instant.parse("2026-01-07T02:59:59Z"))).isPresent();
    assertThat(window.coveringEnd(Instant.parse("2026-01-07T03:00:00Z"))).isEmpty();
    assertThat(window.coveringEnd(Instant.parse("2026-01-08T01:30:00Z")))
        .as("Thursday is not a window day")
        .isEmpty();
  }

  @Test
  void windowSpanningMidnightCoversTheNextDayFromTheStartDay() {
    Window window = window(Set.of(DayOfWeek.FRIDAY), "23:00", Duration.ofHours(3));
    // Friday 2026-01-09 23:00 CET = 22:00Z; Saturday 01:30 CET = 00:30Z is still inside.
    assertThat(window.coveringEnd(Instant.parse("2026-01-10T00:30:00Z")))
        .contains(Instant.parse("2026-01-10T01:00:00Z"));
  }

  @Test
  void sevenDayWindowCoversTheWholeWeek() {
    Window window = window(Set.of(DayOfWeek.MONDAY), "00:00", Duration.ofDays(7));
    assertThat(window.coveringEnd(Instant.parse("2026-01-11T22:59:00Z")))
        .as("Sunday evening, six days after Monday 00:00")
        .contains(Instant.parse("2026-01-11T23:00:00Z"));
  }

  @Test
  void springForwardWindowIsElapsedTimeFromTheLocalStart() {
    // 2026-03-29 (Sunday) Europe/Berlin: 02:00 CET -> 03:00 CEST. A window 01:00 local for 3 h
    // starts 00:00Z and ends 03:00Z (05:00 CEST on the wall clock, not 04:00).
    Window window = window(Set.of(DayOfWeek.SUNDAY), "01:00", Duration.ofHours(3));
    assertThat(window.coveringEnd(Instant.parse("2026-03-28T23:59:59Z"))).isEmpty();
    assertThat(window.coveringEnd(Instant.parse("2026-03-29T00:00:00Z")))
        .contains(Instant.parse("2026-03-29T03:00:00Z"));
    assertThat(window.coveringEnd(Instant.parse("2026-03-29T02:59:59Z"))).isPresent();
    assertThat(window.coveringEnd(Instant.parse("2026-03-29T03:00:00Z"))).isEmpty();
  }

  @Test
  void startInsideTheSpringForwardGapMovesForwardByTheGap() {
    // 02:30 does not exist on 2026-03-29 in Berlin: the window starts at 03:30 CEST = 01:30Z.
    Window window = window(Set.of(DayOfWeek.SUNDAY), "02:30", Duration.ofHours(1));
    assertThat(window.coveringEnd(Instant.parse("2026-03-29T01:29:59Z"))).isEmpty();
    assertThat(window.coveringEnd(Instant.parse("2026-03-29T01:30:00Z")))
        .contains(Instant.parse("2026-03-29T02:30:00Z"));
    // The next Sunday it is 02:30 CEST = 00:30Z again.
    assertThat(window.coveringEnd(Instant.parse("2026-04-05T00:30:00Z"))).isPresent();
  }

  @Test
  void startInsideTheAutumnOverlapUsesTheEarlierOffset() {
    // 2026-10-25 (Sunday) Berlin: 03:00 CEST -> 02:00 CET, 02:30 happens twice; the first (CEST,
    // 00:30Z) starts the window, so 02:30 CET (01:30Z) is already 1 h into it.
    Window window = window(Set.of(DayOfWeek.SUNDAY), "02:30", Duration.ofMinutes(90));
    assertThat(window.coveringEnd(Instant.parse("2026-10-25T00:29:59Z"))).isEmpty();
    assertThat(window.coveringEnd(Instant.parse("2026-10-25T00:30:00Z")))
        .contains(Instant.parse("2026-10-25T02:00:00Z"));
    assertThat(window.coveringEnd(Instant.parse("2026-10-25T01:59:59Z"))).isPresent();
    assertThat(window.coveringEnd(Instant.parse("2026-10-25T02:00:00Z"))).isEmpty();
  }

  @Test
  void sameLocalStartIsAnHourLaterInUtcAfterTheAutumnChange() {
    Window window =
        window(Set.of(DayOfWeek.SATURDAY, DayOfWeek.SUNDAY), "06:00", Duration.ofHours(1));
    // Saturday 2026-10-24 06:00 CEST = 04:00Z; Sunday 2026-10-25 06:00 CET = 05:00Z.
    assertThat(window.coveringEnd(Instant.parse("2026-10-24T04:30:00Z"))).isPresent();
    assertThat(window.coveringEnd(Instant.parse("2026-10-25T04:30:00Z"))).isEmpty();
    assertThat(window.coveringEnd(Instant.parse("2026-10-25T05:30:00Z"))).isPresent();
  }

  @Test
  void quietIsTheLongestCoveringPeriodOfWindowsAndSilences() {
    Instant at = Instant.parse("2026-01-07T01:30:00Z");
    Window window = window(Set.of(DayOfWeek.WEDNESDAY), "02:00", Duration.ofHours(2));
    Silence payments =
        new Silence(
            UUID.randomUUID(),
            "payments",
            null,
            "ops",
            "deploy",
            at.minusSeconds(60),
            at.plusSeconds(7200));
    Silence batch =
        new Silence(
            UUID.randomUUID(),
            null,
            "batch-",
            "ops",
            "rerun",
            at.minusSeconds(60),
            at.plusSeconds(60));
    assertThat(Quiet.at("payments", List.of(window), List.of(payments), at))
        .hasValueSatisfying(q -> assertThat(q.until()).isEqualTo(at.plusSeconds(7200)));
    assertThat(Quiet.at("batch-nightly", List.of(), List.of(payments, batch), at))
        .hasValueSatisfying(q -> assertThat(q.reason()).isEqualTo("silence " + batch.id()));
    assertThat(Quiet.at("search", List.of(), List.of(payments, batch), at)).isEmpty();
    assertThat(Quiet.at("payments", List.of(), List.of(payments), at.plusSeconds(7200)))
        .as("a silence ends at its until (exclusive)")
        .isEmpty();
  }
}
