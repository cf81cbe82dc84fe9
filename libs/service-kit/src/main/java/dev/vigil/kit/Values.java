package dev.vigil.kit;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The parsed settings of one service: typed values by {@link Setting}. {@link #toString()} shows
 * every value except secrets, and URLs without credentials or query strings.
 */
public final class Values {
  private final List<Setting<?>> settings;
  private final Map<String, Object> byKey;
  private final Map<String, Map<String, String>> prefixed;

  Values(
      List<Setting<?>> settings,
      Map<String, Object> byKey,
      Map<String, Map<String, String>> prefixed) {
    this.settings = settings;
    this.byKey = Collections.unmodifiableMap(new HashMap<>(byKey));
    Map<String, Map<String, String>> copy = new HashMap<>();
    prefixed.forEach((prefix, found) -> copy.put(prefix, Map.copyOf(found)));
    this.prefixed = Collections.unmodifiableMap(copy);
  }

  /**
   * The pass-through variables {@code <prefix><name>} by name (see {@link ConfigDef#prefixed}).
   * Their values may be secret: never log them.
   *
   * @throws IllegalArgumentException if {@code prefix} is not declared by this service
   */
  public Map<String, String> prefixed(String prefix) {
    Map<String, String> found = prefixed.get(prefix);
    if (found == null) {
      throw new IllegalArgumentException(prefix + "<name> is not a setting of this service");
    }
    return found;
  }

  /**
   * The typed value of {@code setting}, or null when it is optional and unset.
   *
   * @throws IllegalArgumentException if {@code setting} is not one of this service's settings
   */
  public <T> T get(Setting<T> setting) {
    if (!byKey.containsKey(setting.key())) {
      throw new IllegalArgumentException(setting.key() + " is not a setting of this service");
    }
    @SuppressWarnings("unchecked")
    T value = (T) byKey.get(setting.key());
    return value;
  }

  @Override
  public String toString() {
    StringJoiner shown = new StringJoiner(", ");
    for (Setting<?> setting : settings) {
      Object value = byKey.get(setting.key());
      String text;
      if (value == null) {
        text = "(none)";
      } else if (setting.secret()) {
        text = "<secret>";
      } else {
        text = Redact.urls(String.valueOf(value));
      }
      shown.add(setting.key() + "=" + text);
    }
    // pass-through values may hold credentials (a JAAS config): only their names are shown
    prefixed.forEach(
        (prefix, found) -> found.keySet().forEach(n -> shown.add(prefix + n + "=<hidden>")));
    return shown.toString();
  }
}
