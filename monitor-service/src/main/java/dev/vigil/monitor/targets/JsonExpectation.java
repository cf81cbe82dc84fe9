package dev.vigil.monitor.targets;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A body condition: the JSON value at {@code pointer} (RFC 6901) equals {@code expected}. Numbers
 * compare by value ({@code 1} equals {@code 1.0}); a string never equals a number.
 *
 * @param pointer where to look, e.g. {@code /status} or {@code /checks/0/state}
 * @param expected a scalar: string, number, boolean or null
 */
public record JsonExpectation(JsonPointer pointer, JsonNode expected) {
  public JsonExpectation {
    Objects.requireNonNull(pointer, "pointer");
    Objects.requireNonNull(expected, "expected");
    if (!expected.isValueNode()) {
      throw new IllegalArgumentException("the expected value must be a scalar");
    }
  }

  /** Whether {@code actual} (a missing node when the pointer finds nothing) is the expected one. */
  public boolean matches(JsonNode actual) {
    if (actual == null || actual.isMissingNode()) {
      return false;
    }
    if (expected.isNumber() && actual.isNumber()) {
      return expected.decimalValue().compareTo(actual.decimalValue()) == 0;
    }
    return expected.equals(actual);
  }
}
