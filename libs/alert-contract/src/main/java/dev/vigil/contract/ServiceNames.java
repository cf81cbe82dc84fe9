package dev.vigil.contract;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Service names are the Kafka key and the unit of ordering, so every component must agree on them:
 * after trimming and lower-casing they match {@code [a-z0-9][a-z0-9_-]{0,49}}.
 */
public final class ServiceNames {
  /** The pattern a normalized service name matches. */
  public static final Pattern PATTERN = Pattern.compile("[a-z0-9][a-z0-9_-]{0,49}");

  private ServiceNames() {}

  /**
   * Trims and lower-cases {@code raw} and checks it against {@link #PATTERN}.
   *
   * @throws IllegalArgumentException naming the rule that was broken
   */
  public static String normalize(String raw) {
    if (raw == null) {
      throw new IllegalArgumentException("service name is missing");
    }
    String name = raw.strip().toLowerCase(Locale.ROOT);
    if (!isValid(name)) {
      throw new IllegalArgumentException(
          "service name '"
              + raw
              + "' must be 1-50 characters of a-z, 0-9, '_' or '-', starting with a letter or digit");
    }
    return name;
  }

  /** Whether {@code name} is already a normalized, valid service name. */
  public static boolean isValid(String name) {
    return name != null && PATTERN.matcher(name).matches();
  }
}
