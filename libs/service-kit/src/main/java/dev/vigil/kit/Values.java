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

  Values(List<Setting<?>> settings, Map<String, Object> byKey) {
    this.settings = settings;
    this.byKey = Collections.unmodifiableMap(new HashMap<>(byKey));
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
    return shown.toString();
  }
}
