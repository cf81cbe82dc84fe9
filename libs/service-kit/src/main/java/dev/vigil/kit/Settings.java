package dev.vigil.kit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads {@link Setting}s from a map of raw values (the process environment in production, a plain
 * map in tests). Every problem found is collected, so one start-up attempt reports all bad keys at
 * once.
 */
public final class Settings {
  private final Map<String, String> values;
  private final List<String> problems = new ArrayList<>();

  public Settings(Map<String, String> values) {
    this.values = Map.copyOf(values);
  }

  /** Settings from the process environment. */
  public static Settings fromEnvironment() {
    return new Settings(System.getenv());
  }

  /**
   * The typed value of {@code setting}: its raw value if set and non-blank, else the default. A
   * missing required setting or an invalid value is recorded and null returned; call {@link
   * #validate()} once all are read.
   */
  public <T> T get(Setting<T> setting) {
    String raw = values.get(setting.key());
    if (raw == null || raw.isBlank()) {
      if (setting.required()) {
        problems.add(setting.key() + " is required: " + setting.doc());
        return null;
      }
      raw = setting.fallback();
      if (raw.isEmpty()) {
        return null;
      }
    }
    try {
      return setting.parse(raw);
    } catch (ConfigException e) {
      problems.add(e.getMessage());
      return null;
    }
  }

  /**
   * The raw value of any variable, stripped, or null when unset or blank: for values a setting
   * refers to by name (e.g. a route's {@code secrets=env:NAME}). Never log it.
   */
  public String raw(String key) {
    String raw = values.get(key);
    return raw == null || raw.isBlank() ? null : raw.strip();
  }

  /**
   * Records a cross-field problem found by the caller, e.g. "VIGIL_A must be less than VIGIL_B".
   */
  public void problem(String message) {
    problems.add(message);
  }

  /**
   * Throws a {@link ConfigException} listing every problem seen so far.
   *
   * @throws ConfigException if any setting was missing or invalid
   */
  public void validate() {
    if (!problems.isEmpty()) {
      throw new ConfigException("invalid configuration: " + String.join("; ", problems));
    }
  }
}
