package dev.vigil.connect;

import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Fills the {@code ${VIGIL_*}} placeholders of the shipped worker properties and connector JSON,
 * the way {@code docker/vigil-connect.sh} does. Other {@code ${...}} references (the worker's
 * config providers, e.g. {@code ${directory:...}}) are left for Connect to resolve.
 */
final class Placeholders {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(VIGIL_[A-Z0-9_]+)}");

  /**
   * Characters that could break out of a JSON string or a properties line, or start a reference.
   */
  private static final Pattern UNSAFE = Pattern.compile("[\"\\\\\\n\\r]|\\$\\{");

  private Placeholders() {}

  /**
   * @throws IllegalArgumentException naming every placeholder without a value, or the value that is
   *     unsafe to place into JSON or a properties file
   */
  static String fill(String template, Map<String, String> values) {
    TreeSet<String> missing = new TreeSet<>();
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String name = m.group(1);
      String value = values.get(name);
      if (value == null) {
        missing.add(name);
        continue;
      }
      if (UNSAFE.matcher(value).find()) {
        throw new IllegalArgumentException(
            name + " contains a quote, backslash, line break or '${', which the template refuses");
      }
      m.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException("no value for placeholders " + missing);
    }
    m.appendTail(out);
    return out.toString();
  }
}
