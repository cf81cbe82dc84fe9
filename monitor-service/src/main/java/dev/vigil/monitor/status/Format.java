package dev.vigil.monitor.status;

import dev.vigil.kit.SafeText;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * How the page writes times, durations and text from outside. Text from outside (errors, names) is
 * first made printable and bounded with {@link SafeText} (NUL and other control characters become
 * {@code \\uXXXX}), then HTML-escaped by the templates.
 */
final class Format {
  /** Longest error shown on the page, in characters. */
  static final int MAX_ERROR = 300;

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT)
          .withZone(ZoneOffset.UTC);

  private Format() {}

  /** {@code 2026-11-30 23:57:12 UTC}, or an empty string for null. */
  static String time(Instant instant) {
    return instant == null ? "" : TIME.format(instant);
  }

  /** ISO-8601 for {@code datetime} attributes, or an empty string for null. */
  static String iso(Instant instant) {
    return instant == null ? "" : instant.toString();
  }

  /** {@code 2d 3h}, {@code 1h 5m}, {@code 4m 12s}, {@code 12s}; negative counts as zero. */
  static String duration(Duration duration) {
    long seconds = Math.max(0, duration.toSeconds());
    long days = seconds / 86_400;
    long hours = seconds % 86_400 / 3_600;
    long minutes = seconds % 3_600 / 60;
    if (days > 0) {
      return days + "d " + hours + "h";
    }
    if (hours > 0) {
      return hours + "h " + minutes + "m";
    }
    return minutes > 0 ? minutes + "m " + seconds % 60 + "s" : seconds + "s";
  }

  /** Outside text made printable and cut to {@code max} characters; null stays null. */
  static String text(String outside, int max) {
    return SafeText.text(outside, max);
  }

  /** A number with at most one decimal, dot as separator, for SVG coordinates. */
  static String number(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }
}
