package dev.vigil.notifier.delivery;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Retry delays: exponential ({@code initial * 2^(attempt-1)}, capped at {@code max}) with "equal
 * jitter" (half fixed, half random) so retries of many services spread out. A receiver's {@code
 * Retry-After} is honoured as a lower bound, itself capped at {@code retryAfterMax}.
 */
record Backoff(Duration initial, Duration max, Duration retryAfterMax) {

  /** The delay before the attempt after {@code attempt} failed. */
  Duration delay(int attempt, Duration retryAfter) {
    long base = initial.toMillis();
    int shift = Math.min(Math.max(attempt - 1, 0), 30);
    long exponential = Math.min(max.toMillis(), base << shift);
    if (exponential < 0) {
      exponential = max.toMillis();
    }
    long half = exponential / 2;
    long jittered = half + (half > 0 ? ThreadLocalRandom.current().nextLong(half + 1) : 0);
    if (jittered == 0) {
      jittered = exponential;
    }
    if (retryAfter != null && !retryAfter.isNegative()) {
      // Compared as durations: a receiver's Retry-After may be far beyond what fits in a long of
      // milliseconds, and must end up as the configured bound, not as an overflow.
      Duration honoured = retryAfter.compareTo(retryAfterMax) > 0 ? retryAfterMax : retryAfter;
      return Duration.ofMillis(Math.max(jittered, honoured.toMillis()));
    }
    return Duration.ofMillis(jittered);
  }

  /** A Retry-After beyond anything a bound can be: what a too-large value is read as. */
  static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

  /**
   * Parses a Retry-After value: delta-seconds or an HTTP-date. Null when absent or unreadable; a
   * number of seconds too large for a long is {@link #FOREVER} (then bounded by {@link #delay}).
   */
  static Duration parseRetryAfter(String value, Instant now) {
    if (value == null || value.isBlank()) {
      return null;
    }
    String text = value.strip();
    if (text.chars().allMatch(c -> c >= '0' && c <= '9')) {
      try {
        return Duration.ofSeconds(Long.parseLong(text));
      } catch (NumberFormatException tooLarge) {
        return FOREVER;
      }
    }
    try {
      Instant at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration until = Duration.between(now, at);
      return until.isNegative() ? Duration.ZERO : until;
    } catch (DateTimeParseException | ArithmeticException notDate) {
      return null;
    }
  }
}
