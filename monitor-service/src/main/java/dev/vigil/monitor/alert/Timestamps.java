package dev.vigil.monitor.alert;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.SignStyle;
import java.time.temporal.ChronoField;

/**
 * Instants as PostgreSQL {@code timestamptz} input text, for array parameters: every instant the
 * database can store, including years beyond 9999 and before year 1 (written with {@code BC}, as
 * PostgreSQL expects), exact to the microsecond.
 */
final class Timestamps {
  private static final DateTimeFormatter AD =
      new DateTimeFormatterBuilder()
          .appendValue(ChronoField.YEAR_OF_ERA, 4, 9, SignStyle.NOT_NEGATIVE)
          .appendPattern("-MM-dd HH:mm:ss.SSSSSS")
          .appendLiteral("+00")
          .toFormatter()
          .withZone(ZoneOffset.UTC);

  private Timestamps() {}

  /** {@code instant} as {@code timestamptz} text, or null. */
  static String text(Instant instant) {
    if (instant == null) {
      return null;
    }
    String text = AD.format(instant);
    return instant.atOffset(ZoneOffset.UTC).getYear() < 1 ? text + " BC" : text;
  }
}
