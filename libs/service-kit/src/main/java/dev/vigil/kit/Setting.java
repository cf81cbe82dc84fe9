package dev.vigil.kit;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One documented configuration key, declared once: its environment variable name, type, default
 * (null = required), meaning, validation and whether it is a secret. The startup error ({@link
 * ConfigDef#parse}) and the README configuration table ({@link ConfigDef#markdownRows}) both come
 * from this declaration. Modelled on Kafka's {@code ConfigDef.define(name, type, default,
 * validator, importance, doc)}; instances are immutable, each {@code with…} method returns a copy.
 *
 * @param <T> the typed value
 */
public final class Setting<T> {
  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");
  private static final Pattern KEY = Pattern.compile("VIGIL_[A-Z0-9_]+|[A-Z][A-Z0-9_]*");

  private final String key;
  private final String defaultValue;
  private final String doc;
  private final boolean secret;
  private final Function<String, T> parser;
  private final Supplier<String> computedDefault;
  private final List<String> rules;

  /**
   * @param key environment variable name, e.g. {@code VIGIL_DB_URL}
   * @param defaultValue the raw default, {@code ""} for "not set", or null when required
   * @param doc one sentence for the configuration reference
   * @param secret true for tokens and passwords: never shown in logs, errors or {@code toString}
   * @param parser turns the stripped raw text into the typed value; throws IllegalArgumentException
   *     with the reason
   */
  public Setting(
      String key, String defaultValue, String doc, boolean secret, Function<String, T> parser) {
    this(key, defaultValue, doc, secret, parser, null, List.of());
  }

  private Setting(
      String key,
      String defaultValue,
      String doc,
      boolean secret,
      Function<String, T> parser,
      Supplier<String> computedDefault,
      List<String> rules) {
    this.key = Objects.requireNonNull(key, "key");
    this.doc = Objects.requireNonNull(doc, "doc");
    this.parser = Objects.requireNonNull(parser, "parser");
    this.defaultValue = defaultValue;
    this.secret = secret;
    this.computedDefault = computedDefault;
    this.rules = List.copyOf(rules);
    if (!KEY.matcher(key).matches()) {
      throw new IllegalArgumentException(
          "setting key '" + key + "' must be an upper-case env var name");
    }
  }

  public String key() {
    return key;
  }

  /** The raw default: null when required, {@code ""} when the setting may stay unset. */
  public String defaultValue() {
    return defaultValue;
  }

  public String doc() {
    return doc;
  }

  public boolean secret() {
    return secret;
  }

  /**
   * The variable that may hold the path of a file with this secret's value instead ({@code
   * KEY_FILE}); null for a setting that is not secret.
   */
  public String fileKey() {
    return secret ? key + "_FILE" : null;
  }

  /** What a valid value must be, in words ("must be between 1 and 64"), for the README. */
  public List<String> rules() {
    return rules;
  }

  /** True when the default is computed at startup (e.g. from the host name). */
  public boolean computedDefault() {
    return computedDefault != null;
  }

  public boolean required() {
    return defaultValue == null;
  }

  /** The raw value used when the key is unset: the default, or one computed at startup. */
  String fallback() {
    return computedDefault == null ? defaultValue : computedDefault.get();
  }

  /** The same setting with another default, e.g. each service's own HTTP port. */
  public Setting<T> withDefault(String rawDefault) {
    return new Setting<>(key, rawDefault, doc, secret, parser, computedDefault, rules);
  }

  /** The same setting with a meaning worded for one service. */
  public Setting<T> withDoc(String newDoc) {
    return new Setting<>(key, defaultValue, newDoc, secret, parser, computedDefault, rules);
  }

  /** The same setting, required (no default). */
  public Setting<T> asRequired() {
    return new Setting<>(key, null, doc, secret, parser, null, rules);
  }

  /** When unset, the value is computed once at startup (e.g. from the host name). */
  public Setting<T> withComputedDefault(Supplier<String> supplier) {
    return new Setting<>(key, "", doc, secret, parser, supplier, rules);
  }

  /** Adds a rule on the typed value; {@code reason} completes "is invalid: …". */
  public Setting<T> check(Predicate<? super T> rule, String reason) {
    return new Setting<>(
        key,
        defaultValue,
        doc,
        secret,
        parser.andThen(
            value -> {
              boolean valid;
              try {
                valid = rule.test(value);
              } catch (IllegalArgumentException e) {
                throw e;
              } catch (RuntimeException e) {
                // a rule that cannot even judge the value (e.g. a parser failing oddly) rejects it
                throw new IllegalArgumentException(reason, e);
              }
              if (!valid) {
                throw new IllegalArgumentException(reason);
              }
              return value;
            }),
        computedDefault,
        Stream.concat(rules.stream(), Stream.of(reason)).toList());
  }

  /**
   * Parses {@code raw} or fails with a {@link ConfigException} naming this key (and hiding secret
   * values).
   */
  public T parse(String raw) {
    try {
      return parser.apply(raw.strip());
    } catch (IllegalArgumentException e) {
      String reason = String.valueOf(e.getMessage());
      if (secret) {
        // a parser's message may quote its input ("For input string: …"): never a secret's
        String stripped = raw.strip();
        boolean echoes = !stripped.isEmpty() && reason.contains(stripped);
        throw new ConfigException(
            key + "=<secret> is invalid: " + (echoes ? "not a valid value" : reason));
      }
      throw new ConfigException(key + "='" + Redact.urls(raw) + "' is invalid: " + reason);
    }
  }

  @Override
  public String toString() {
    return key;
  }

  /** The same setting with {@code text} as its meaning (in the README and error messages). */
  public Setting<T> doc(String text) {
    return withDoc(text);
  }

  /**
   * Values must lie between {@code min} and {@code max} inclusive, written as the setting's own
   * values ({@code "1"}, {@code "250ms"}).
   */
  @SuppressWarnings("unchecked")
  public Setting<T> range(String min, String max) {
    Comparable<T> low = (Comparable<T>) parser.apply(min);
    Comparable<T> high = (Comparable<T>) parser.apply(max);
    return check(
        value -> low.compareTo(value) <= 0 && high.compareTo(value) >= 0,
        "must be between " + min + " and " + max);
  }

  /** The whole value must match {@code pattern}; {@code shape} says what it should look like. */
  public Setting<T> matching(Pattern pattern, String shape) {
    return check(value -> pattern.matcher(String.valueOf(value)).matches(), "must be " + shape);
  }

  /** The value must be one of {@code choices}. */
  public Setting<T> oneOf(String... choices) {
    List<String> allowed = List.of(choices);
    return check(
        value -> allowed.contains(String.valueOf(value)),
        "must be one of " + String.join(", ", allowed));
  }

  /** A non-empty string; null default = required, {@code ""} = may stay unset. */
  public static Setting<String> string(String key, String defaultValue) {
    return new Setting<>(key, defaultValue, "", false, Setting::nonBlank);
  }

  /**
   * A string that is never shown: tokens, passwords, signing secrets. Empty default means "not
   * set".
   */
  public static Setting<String> secret(String key, String defaultValue) {
    return new Setting<>(key, defaultValue, "", true, raw -> raw);
  }

  public static Setting<Integer> integer(String key, int defaultValue) {
    return new Setting<>(key, String.valueOf(defaultValue), "", false, Setting::parseInt);
  }

  public static Setting<Boolean> bool(String key, boolean defaultValue) {
    return new Setting<>(key, String.valueOf(defaultValue), "", false, Setting::parseBoolean);
  }

  /**
   * A duration written as {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h} or ISO-8601 ({@code
   * PT10S}).
   */
  public static Setting<Duration> duration(String key, String defaultValue) {
    return new Setting<>(key, defaultValue, "", false, Setting::parseDuration);
  }

  private static int parseInt(String raw) {
    try {
      return Integer.parseInt(raw);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not an integer");
    }
  }

  private static boolean parseBoolean(String raw) {
    return switch (raw.toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1" -> true;
      case "false", "no", "0" -> false;
      default -> throw new IllegalArgumentException("must be true or false");
    };
  }

  static Duration parseDuration(String raw) {
    Matcher matcher = DURATION.matcher(raw.toLowerCase(Locale.ROOT));
    if (matcher.matches()) {
      long amount;
      try {
        amount = Long.parseLong(matcher.group(1));
        return switch (matcher.group(2)) {
          case "ms" -> Duration.ofMillis(amount);
          case "s" -> Duration.ofSeconds(amount);
          case "m" -> Duration.ofMinutes(amount);
          default -> Duration.ofHours(amount);
        };
      } catch (ArithmeticException | NumberFormatException e) {
        throw new IllegalArgumentException("duration out of range");
      }
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
