package dev.vigil.bench;

import java.util.Map;
import java.util.TreeMap;

/**
 * Environment variables an experiment adds through a system property: space-separated {@code
 * NAME=value} pairs, e.g. {@code -Dbench.relay.env="VIGIL_RELAY_POLL_INTERVAL=50ms"}.
 */
public final class ExtraEnvironment {
  private ExtraEnvironment() {}

  /**
   * The variables of system property {@code property}; empty when it is not set.
   *
   * @throws IllegalStateException naming the property and the pair that is not {@code NAME=value}
   */
  public static Map<String, String> of(String property) {
    String spec = System.getProperty(property, "").strip();
    Map<String, String> env = new TreeMap<>();
    for (String pair : spec.isEmpty() ? new String[0] : spec.split("\\s+")) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new IllegalStateException(property + ": not NAME=value: '" + pair + "'");
      }
      env.put(pair.substring(0, eq), pair.substring(eq + 1));
    }
    return env;
  }
}
