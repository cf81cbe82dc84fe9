package dev.vigil.monitor.api;

import dev.vigil.monitor.quiet.WindowForm;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parameters of {@code GET /api/services/{name}/uptime}, read from the raw query string and
 * refused with a 400 naming the parameter, never an exception of another kind: invalid
 * percent-encoding or UTF-8, control characters, duplicate or unknown parameters, unparsable or
 * huge values, {@code from} not before {@code to}, a step finer than the kept resolution, a range
 * over {@link #MAX_RANGE} or more than {@link #MAX_STEPS} steps.
 *
 * <p>The range is aligned to the step: to UTC days for a step of whole days, to hours for others
 * ({@code from} down, {@code to} up); the last step is cut at {@code to}. A range whose aligned
 * start is within the hourly rollup's {@link #HOURLY_SPAN} of now is read from hourly buckets and
 * takes steps of whole hours; one that starts before is read from daily sums and takes whole days.
 *
 * @param from the first step's start
 * @param to the end, exclusive
 * @param step each step's length
 * @param resolution the buckets the range is read from
 */
record UptimeRequest(Instant from, Instant to, Duration step, Resolution resolution) {
  /** Longest range one request may cover. */
  static final Duration MAX_RANGE = Duration.ofDays(400);

  /** Most steps one response may have. */
  static final int MAX_STEPS = 10_000;

  /** Range read from hourly buckets (kept 31 days; a day's margin for the trim). */
  static final Duration HOURLY_SPAN = Duration.ofDays(30);

  static final Duration DEFAULT_RANGE = Duration.ofDays(30);
  static final Duration DEFAULT_STEP = Duration.ofDays(1);

  private static final int MAX_VALUE = 64;
  private static final Set<String> NAMES = Set.of("from", "to", "step");
  private static final Pattern STEP = Pattern.compile("(\\d{1,6})(s|m|h|d)");
  private static final Pattern DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");
  private static final Instant EARLIEST = Instant.parse("1970-01-01T00:00:00Z");
  private static final Instant LATEST = Instant.parse("9999-01-01T00:00:00Z");

  /** The rollup a range is read from, and the unit its steps must be whole multiples of. */
  enum Resolution {
    HOUR(ChronoUnit.HOURS),
    DAY(ChronoUnit.DAYS);

    final ChronoUnit unit;

    Resolution(ChronoUnit unit) {
      this.unit = unit;
    }

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  UptimeRequest {
    if (!from.isBefore(to) || step.isNegative() || step.isZero()) {
      throw new IllegalArgumentException("an uptime range needs from < to and a positive step");
    }
  }

  /** Steps in the range (the last may be shorter). */
  long steps() {
    return steps(from, to, step);
  }

  /**
   * Reads {@code rawQuery} (as sent, still percent-encoded; null for none) at {@code now}.
   *
   * @throws ApiException a 400 naming the parameter
   */
  static UptimeRequest parse(String rawQuery, Instant now) {
    Map<String, String> params = params(rawQuery);
    Instant to = params.containsKey("to") ? instant("to", params.get("to")) : now;
    Instant from =
        params.containsKey("from") ? instant("from", params.get("from")) : to.minus(DEFAULT_RANGE);
    Duration step = params.containsKey("step") ? step(params.get("step")) : DEFAULT_STEP;
    if (!from.isBefore(to)) {
      throw ApiException.badRequest(
          params.containsKey("from") ? "from" : "to", "from must be before to");
    }
    Instant hourlyFrom = now.truncatedTo(ChronoUnit.HOURS).minus(HOURLY_SPAN);
    // Daily steps start at midnight UTC, others at the hour; the aligned start picks the rollup.
    ChronoUnit align = step.toSeconds() % 86_400 == 0 ? ChronoUnit.DAYS : ChronoUnit.HOURS;
    Instant alignedFrom = from.truncatedTo(align);
    Resolution resolution = alignedFrom.isBefore(hourlyFrom) ? Resolution.DAY : Resolution.HOUR;
    Duration unit = resolution.unit.getDuration();
    if (step.compareTo(unit) < 0 || step.toSeconds() % unit.toSeconds() != 0) {
      throw ApiException.badRequest(
          "step",
          "must be whole "
              + (resolution == Resolution.HOUR ? "hours (1h" : "days (1d")
              + " is the kept resolution"
              + (resolution == Resolution.DAY
                  ? " of ranges starting before " + hourlyFrom + ", older than the hourly rollup"
                  : "")
              + "), was "
              + params.get("step"));
    }
    Instant alignedTo = to.truncatedTo(align);
    if (alignedTo.isBefore(to)) {
      alignedTo = alignedTo.plus(align.getDuration());
    }
    Duration range = Duration.between(alignedFrom, alignedTo);
    if (range.compareTo(MAX_RANGE) > 0) {
      throw ApiException.badRequest(
          "from",
          "the range from "
              + alignedFrom
              + " to "
              + alignedTo
              + " spans "
              + range.toDays()
              + " days, more than "
              + MAX_RANGE.toDays());
    }
    long steps = steps(alignedFrom, alignedTo, step);
    if (steps > MAX_STEPS) {
      throw ApiException.badRequest(
          "step", "gives " + steps + " steps, more than " + MAX_STEPS + "; take a longer step");
    }
    return new UptimeRequest(alignedFrom, alignedTo, step, resolution);
  }

  private static long steps(Instant from, Instant to, Duration step) {
    long seconds = Duration.between(from, to).toSeconds();
    return (seconds + step.toSeconds() - 1) / step.toSeconds();
  }

  /** The parameters by name, each decoded and given once. */
  static Map<String, String> params(String rawQuery) {
    Map<String, String> params = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return params;
    }
    for (String pair : rawQuery.split("&", -1)) {
      if (pair.isEmpty()) {
        continue;
      }
      int equals = pair.indexOf('=');
      String rawName = equals < 0 ? pair : pair.substring(0, equals);
      String name = decode(rawName, "query");
      if (!NAMES.contains(name)) {
        throw ApiException.badRequest(shown(name), "unknown parameter (known: from, step, to)");
      }
      String rawValue = equals < 0 ? "" : pair.substring(equals + 1);
      // A value's longest encoding is 12 characters per character (4 UTF-8 bytes as %XX).
      if (rawValue.length() > MAX_VALUE * 12) {
        throw ApiException.badRequest(name, "longer than " + MAX_VALUE + " characters");
      }
      String value = decode(rawValue, name);
      if (params.containsKey(name)) {
        throw ApiException.badRequest(name, "is given more than once");
      }
      if (value.isEmpty()) {
        throw ApiException.badRequest(name, "must not be empty");
      }
      if (value.length() > MAX_VALUE) {
        throw ApiException.badRequest(name, "longer than " + MAX_VALUE + " characters");
      }
      if (!WindowForm.printable(value).equals(value)) {
        throw ApiException.badRequest(name, "contains control characters (NUL, CR, LF, ...)");
      }
      params.put(name, value);
    }
    return params;
  }

  /** Strict application/x-www-form-urlencoded decoding: bad escapes or UTF-8 are refused. */
  private static String decode(String raw, String field) {
    byte[] bytes = new byte[raw.length() * 4];
    int length = 0;
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%') {
        if (i + 2 >= raw.length()) {
          throw ApiException.badRequest(field, "has an incomplete percent escape");
        }
        int high = Character.digit(raw.charAt(i + 1), 16);
        int low = Character.digit(raw.charAt(i + 2), 16);
        if (high < 0 || low < 0) {
          throw ApiException.badRequest(field, "has an invalid percent escape");
        }
        bytes[length++] = (byte) (high * 16 + low);
        i += 2;
      } else if (c == '+') {
        bytes[length++] = ' ';
      } else {
        if (Character.isSurrogate(c)) {
          throw ApiException.badRequest(field, "is not ASCII or valid percent-encoded UTF-8");
        }
        byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        System.arraycopy(encoded, 0, bytes, length, encoded.length);
        length += encoded.length;
      }
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes, 0, length))
          .toString();
    } catch (CharacterCodingException e) {
      throw ApiException.badRequest(field, "is not valid UTF-8 once percent-decoded");
    }
  }

  private static Instant instant(String name, String value) {
    Instant instant;
    try {
      instant =
          DATE.matcher(value).matches()
              ? LocalDate.parse(value).atStartOfDay(ZoneOffset.UTC).toInstant()
              : OffsetDateTime.parse(value).toInstant();
    } catch (DateTimeException e) {
      throw ApiException.badRequest(
          name,
          "must be an ISO-8601 time like 2026-11-01T00:00:00Z or a date like 2026-11-01, was '"
              + shown(value)
              + "'");
    }
    if (instant.isBefore(EARLIEST) || !instant.isBefore(LATEST)) {
      throw ApiException.badRequest(name, "must be between 1970 and 9999, was " + value);
    }
    return instant;
  }

  private static Duration step(String value) {
    Matcher matcher = STEP.matcher(value.strip().toLowerCase(Locale.ROOT));
    if (!matcher.matches()) {
      throw ApiException.badRequest(
          "step", "must be a length like 1h, 6h, 1d or 7d, was '" + shown(value) + "'");
    }
    long amount = Long.parseLong(matcher.group(1));
    Duration step =
        switch (matcher.group(2)) {
          case "s" -> Duration.ofSeconds(amount);
          case "m" -> Duration.ofMinutes(amount);
          case "h" -> Duration.ofHours(amount);
          default -> Duration.ofDays(amount);
        };
    if (step.isZero() || step.compareTo(MAX_RANGE) > 0) {
      throw ApiException.badRequest(
          "step", "must be between 1h and " + MAX_RANGE.toDays() + "d, was " + value);
    }
    return step;
  }

  private static String shown(String text) {
    String printable = WindowForm.printable(text);
    return printable.length() > 40 ? printable.substring(0, 40) + "..." : printable;
  }
}
