package dev.vigil.kit;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One documented configuration key: its environment variable name, default (null = required),
 * meaning, and how a raw value becomes a typed one. Modelled on Kafka's {@code ConfigDef}: key
 * constant + doc + validator.
 *
 * @param key environment variable name, e.g. {@code VIGIL_DB_URL}
 * @param defaultValue the raw default, or null when the setting is required
 * @param doc one sentence for the configuration reference
 * @param secret true for tokens and passwords: never shown in logs or errors
 * @param parser turns the raw text into the typed value; throws IllegalArgumentException with the
 *     reason
 */
public record Setting<T>(
    String key, String defaultValue, String doc, boolean secret, Function<String, T> parser) {

  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");

  public Setting {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(doc, "doc");
    Objects.requireNonNull(parser, "parser");
    if (!key.matches("[A-Z][A-Z0-9_]*")) {
      throw new IllegalArgumentException(
          "setting key '" + key + "' must be an upper-case env var name");
    }
  }

  public boolean required() {
    return defaultValue == null;
  }

  /**
   * Parses {@code raw} or fails with a {@link ConfigException} naming this key (and hiding secret
   * values).
   */
  public T parse(String raw) {
    try {
      return parser.apply(raw.strip());
    } catch (IllegalArgumentException e) {
      String shown = secret ? "<secret>" : "'" + raw + "'";
      throw new ConfigException(key + "=" + shown + " is invalid: " + e.getMessage());
    }
  }

  public static Setting<String> string(String key, String defaultValue, String doc) {
    return new Setting<>(key, defaultValue, doc, false, Setting::nonBlank);
  }

  /**
   * A string that is never logged: tokens, passwords, signing secrets. Empty default means "not
   * set".
   */
  public static Setting<String> secret(String key, String defaultValue, String doc) {
    return new Setting<>(key, defaultValue, doc, true, raw -> raw);
  }

  public static Setting<Integer> integer(
      String key, int defaultValue, int min, int max, String doc) {
    return new Setting<>(
        key,
        String.valueOf(defaultValue),
        doc,
        false,
        raw -> {
          int value;
          try {
            value = Integer.parseInt(raw);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an integer");
          }
          if (value < min || value > max) {
            throw new IllegalArgumentException("must be between " + min + " and " + max);
          }
          return value;
        });
  }

  public static Setting<Boolean> bool(String key, boolean defaultValue, String doc) {
    return new Setting<>(
        key,
        String.valueOf(defaultValue),
        doc,
        false,
        raw ->
            switch (raw.toLowerCase(Locale.ROOT)) {
              case "true", "yes", "1" -> true;
              case "false", "no", "0" -> false;
              default -> throw new IllegalArgumentException("must be true or false");
            });
  }

  /**
   * A duration written as {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h} or ISO-8601 ({@code
   * PT10S}).
   */
  public static Setting<Duration> duration(
      String key, String defaultValue, Duration min, Duration max, String doc) {
    return new Setting<>(
        key,
        defaultValue,
        doc,
        false,
        raw -> {
          Duration value = parseDuration(raw);
          if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException("must be between " + min + " and " + max);
          }
          return value;
        });
  }

  static Duration parseDuration(String raw) {
    Matcher matcher = DURATION.matcher(raw.toLowerCase(Locale.ROOT));
    if (matcher.matches()) {
      long amount = Long.parseLong(matcher.group(1));
      return switch (matcher.group(2)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        default -> Duration.ofHours(amount);
      };
    }
    try {
      return Duration.parse(raw.toUpperCase(Locale.ROOT));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a duration (use e.g. 250ms, 10s, 5m, 1h)");
    }
  }

  private static String nonBlank(String raw) {
    if (raw.isEmpty()) {
      throw new IllegalArgumentException("must not be empty");
    }
    return raw;
  }
}
