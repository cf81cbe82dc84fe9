package dev.vigil.kit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
    if (setting.secret()) {
      SecretSource source = secretSource(setting, raw);
      if (source.problem() != null) {
        problems.add(source.problem());
        return null;
      }
      raw = source.raw();
    }
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

  /** The raw value of a secret, or why it cannot be had. */
  private record SecretSource(String raw, String problem) {}

  /**
   * A secret setting {@code KEY} also accepts {@code KEY_FILE}, the path of a file holding it
   * (Kubernetes and compose secrets are files). Setting both is an error naming both keys; an
   * unreadable file is an error naming the key and the path, never the content.
   */
  private SecretSource secretSource(Setting<?> setting, String raw) {
    String fileKey = setting.fileKey();
    String path = values.get(fileKey);
    if (path == null || path.isBlank()) {
      return new SecretSource(raw, null);
    }
    if (raw != null && !raw.isBlank()) {
      return new SecretSource(
          null, setting.key() + " and " + fileKey + " are both set; set only one of them");
    }
    try {
      String content = SecretFile.read(fileKey, Path.of(path.strip()));
      if (content.isEmpty() && setting.required()) {
        return new SecretSource(
            null, fileKey + "=" + SafeText.text(path.strip(), 300) + " is empty: " + setting.doc());
      }
      return new SecretSource(content, null);
    } catch (IllegalArgumentException e) {
      return new SecretSource(
          null, fileKey + "=" + SafeText.text(path.strip(), 300) + ": " + SecretFile.reason(e));
    }
  }

  /**
   * The variables whose names start with {@code prefix}, by the rest of their name, stripped; blank
   * ones left out: for pass-through settings such as {@code VIGIL_KAFKA_PROPERTY_<name>}. Never log
   * the values.
   */
  public Map<String, String> withPrefix(String prefix) {
    Map<String, String> found = new TreeMap<>();
    values.forEach(
        (key, value) -> {
          if (key.startsWith(prefix) && key.length() > prefix.length() && !value.isBlank()) {
            found.put(key.substring(prefix.length()), value.strip());
          }
        });
    return found;
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
