package dev.vigil.notifier.channel;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The send rate of one vendor endpoint, shared by every notifier instance through the database (one
 * bucket row per endpoint, see the delivery package): at most {@code count} messages per {@code
 * per}, spaced evenly ({@link #interval()}). A channel whose rate is off still has a bucket, so
 * that a 429 with {@code Retry-After} holds back every delivery to that endpoint, from every
 * instance, and nothing else.
 *
 * @param bucket the endpoint's key: the channel type and a digest of its URL or routing key (never
 *     the secret itself); channels sharing an endpoint share the bucket
 * @param count messages per {@code per}; 0 when the rate is off
 */
public record RateLimit(String bucket, int count, Duration per) {
  /** The most messages a rate may allow per period. */
  static final int MAX_COUNT = 10_000;

  private static final Pattern RATE = Pattern.compile("([0-9]{1,5})/([0-9]{0,5})(ms|s|m|h)");

  public RateLimit {
    if (bucket == null || bucket.isBlank()) {
      throw new IllegalArgumentException("a rate limit needs a bucket");
    }
    if (count < 0 || count > MAX_COUNT) {
      throw new IllegalArgumentException("count must be 0 to " + MAX_COUNT + ", was " + count);
    }
  }

  /** The pause between two messages; zero when the rate is off. */
  public Duration interval() {
    return count == 0 ? Duration.ZERO : per.dividedBy(count);
  }

  /** As configured: {@code 1/1s}, {@code 120/1m}, or {@code off}. */
  public String text() {
    return count == 0 ? "off" : count + "/" + periodText(per);
  }

  /**
   * Parses {@code N/PERIOD} ({@code 1/s}, {@code 30/1m}, {@code 100/10s}; units ms, s, m, h) or
   * {@code off}.
   *
   * @throws IllegalArgumentException saying what is wrong (without repeating the value)
   */
  static RateLimit parse(String text, String bucket) {
    if (text.equals("off")) {
      return new RateLimit(bucket, 0, Duration.ZERO);
    }
    Matcher m = RATE.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "must be off or N/PERIOD, e.g. 1/s, 30/1m or 100/10s (units ms, s, m, h)");
    }
    int count = Integer.parseInt(m.group(1));
    long amount = m.group(2).isEmpty() ? 1 : Long.parseLong(m.group(2));
    Duration per =
        switch (m.group(3)) {
          case "ms" -> Duration.ofMillis(amount);
          case "s" -> Duration.ofSeconds(amount);
          case "m" -> Duration.ofMinutes(amount);
          default -> Duration.ofHours(amount);
        };
    if (count < 1 || count > MAX_COUNT) {
      throw new IllegalArgumentException("N must be 1 to " + MAX_COUNT);
    }
    if (per.isZero() || per.compareTo(Duration.ofHours(24)) > 0) {
      throw new IllegalArgumentException("PERIOD must be more than 0 and at most 24h");
    }
    if (per.dividedBy(count).toMillis() < 1) {
      throw new IllegalArgumentException("at most one message per millisecond");
    }
    return new RateLimit(bucket, count, per);
  }

  /** A bucket key: {@code type}, then the first 16 bytes of SHA-256 of {@code endpoint}, in hex. */
  static String bucket(String type, String endpoint) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(endpoint.getBytes(StandardCharsets.UTF_8));
      return type + ":" + HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from the JDK", e);
    }
  }

  /** A period as written in a rate: the largest whole unit. */
  private static String periodText(Duration d) {
    long ms = d.toMillis();
    if (ms % 3_600_000 == 0) {
      return d.toHours() + "h";
    }
    if (ms % 60_000 == 0) {
      return d.toMinutes() + "m";
    }
    return ms % 1000 == 0 ? d.toSeconds() + "s" : ms + "ms";
  }
}
