package dev.vigil.monitor.targets;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.TreeMap;

/**
 * {@link Checks} written back in the form {@link CheckFields} reads: the stored form (database
 * column {@code targets.checks}) and, with header values redacted, the form API responses show.
 */
final class CheckForm {
  static final String REDACTED = "<redacted>";

  private CheckForm() {}

  /**
   * The fields of {@code checks} in the form they are read in. With {@code redact}, inline header
   * values are replaced by {@code <redacted>} (API responses); without, it is the stored form.
   */
  static ObjectNode write(Checks checks, boolean redact) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode out = f.objectNode();
    if (!checks.headers().isEmpty()) {
      ObjectNode headers = out.putObject("headers");
      new TreeMap<>(checks.headers())
          .forEach(
              (name, value) -> {
                if (value.file() != null) {
                  headers.putObject(name).put("valueFile", value.file().toString());
                } else {
                  headers.put(name, redact ? REDACTED : value.value());
                }
              });
    }
    if (checks.body() != null) {
      out.put("body", checks.body());
    }
    if (checks.maxLatency() != null) {
      out.put("maxLatency", checks.maxLatency().toMillis() + "ms");
    }
    if (!checks.bodyContains().isEmpty()) {
      checks.bodyContains().forEach(out.putArray("bodyContains")::add);
    }
    if (!checks.bodyNotContains().isEmpty()) {
      checks.bodyNotContains().forEach(out.putArray("bodyNotContains")::add);
    }
    if (!checks.json().isEmpty()) {
      ObjectNode json = out.putObject("jsonEquals");
      checks.json().forEach(e -> json.set(e.pointer().toString(), e.expected()));
    }
    if (checks.tlsExpiryDays() != null) {
      out.put("tlsExpiryDays", checks.tlsExpiryDays());
    }
    if (!checks.expectAddresses().isEmpty()) {
      checks.expectAddresses().forEach(a -> out.withArray("expectAddress").add(a.getHostAddress()));
    }
    return out;
  }
}
