package dev.vigil.monitor.quiet;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A recurring maintenance window: on each of {@code days}, from {@code start} (local time in {@code
 * zone}) for {@code length} of elapsed time.
 *
 * <p>Across a daylight-saving change the start is the local time as {@link ZonedDateTime#of} maps
 * it: a start inside the spring-forward gap moves forward by the gap (02:30 on 2026-03-29 in
 * Europe/Berlin starts at 03:30 CEST), a start inside the autumn overlap uses the earlier offset
 * (02:30 on 2026-10-25 is 02:30 CEST). The length is elapsed time, so a 4 h window that spans the
 * change ends 4 h after it started (one hour later or earlier on the wall clock).
 *
 * @param days the local days a window starts on, at least one
 * @param start local start time
 * @param length elapsed length, {@link #MIN_LENGTH} to {@link #MAX_LENGTH}
 * @param zone IANA time zone
 */
public record Window(Set<DayOfWeek> days, LocalTime start, Duration length, ZoneId zone) {
  public static final Duration MIN_LENGTH = Duration.ofMinutes(1);
  public static final Duration MAX_LENGTH = Duration.ofDays(7);

  public Window {
    Objects.requireNonNull(days, "days");
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(length, "length");
    Objects.requireNonNull(zone, "zone");
    if (days.isEmpty()) {
      throw new IllegalArgumentException("days must name at least one day");
    }
    if (length.compareTo(MIN_LENGTH) < 0 || length.compareTo(MAX_LENGTH) > 0) {
      throw new IllegalArgumentException("length must be between 1m and 7 days, was " + length);
    }
    days = Set.copyOf(EnumSet.copyOf(days));
  }

  /**
   * The end of the occurrence of this window that covers {@code instant}, or empty when none does.
   * A pure function of the window and the instant; an occurrence covers [start, start + length).
   */
  public Optional<Instant> coveringEnd(Instant instant) {
    LocalDate today = instant.atZone(zone).toLocalDate();
    Instant latestEnd = null;
    // A window is at most 7 days long, so only occurrences that started in the last 8 local days
    // (one more for offsets around the date line) can cover the instant.
    for (int back = 0; back <= 8; back++) {
      LocalDate day = today.minusDays(back);
      if (!days.contains(day.getDayOfWeek())) {
        continue;
      }
      Instant begins = ZonedDateTime.of(day, start, zone).toInstant();
      Instant ends = begins.plus(length);
      if (!instant.isBefore(begins) && instant.isBefore(ends)) {
        latestEnd = latestEnd == null || ends.isAfter(latestEnd) ? ends : latestEnd;
      }
    }
    return Optional.ofNullable(latestEnd);
  }
}
