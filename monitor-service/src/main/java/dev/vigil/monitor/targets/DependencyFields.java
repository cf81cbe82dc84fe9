package dev.vigil.monitor.targets;

import static dev.vigil.monitor.targets.CheckFields.printable;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.contract.ServiceNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a definition's {@code dependsOn} and {@code dependencySettle}. A parent that is not a
 * target (yet) is allowed: it holds nothing back until it exists. Refused with the field named: not
 * a list, an element that is not a string, NUL and control characters, a name that is not a target
 * name, duplicates, the target itself, more than {@link TargetSpec#MAX_PARENTS} parents. Cycles
 * span several targets, so {@link DependencyGraph} finds them where all of them are known.
 */
final class DependencyFields {
  static final Duration MAX_SETTLE = Duration.ofHours(1);

  private final TargetParser parser;
  private final JsonNode node;

  DependencyFields(TargetParser parser, JsonNode node) {
    this.parser = parser;
    this.node = node;
  }

  /** The parents in the order given; empty when the field is absent. */
  List<String> parents(String self) {
    JsonNode value = node.get("dependsOn");
    if (value == null || value.isNull()) {
      return List.of();
    }
    if (!value.isArray()) {
      throw parser.invalid("dependsOn", "must be a list of target names");
    }
    if (value.size() > TargetSpec.MAX_PARENTS) {
      throw parser.invalid(
          "dependsOn",
          "has " + value.size() + " parents, more than " + TargetSpec.MAX_PARENTS + " are refused");
    }
    List<String> names = new ArrayList<>();
    for (int i = 0; i < value.size(); i++) {
      String field = "dependsOn[" + i + "]";
      JsonNode element = value.get(i);
      if (!element.isTextual()) {
        throw parser.invalid(field, "must be a string (a target name)");
      }
      String name = element.asText();
      if (!printable(name).equals(name)) {
        throw parser.invalid(field, "contains control characters (NUL, CR, LF, ...)");
      }
      if (!ServiceNames.isValid(name)) {
        throw parser.invalid(
            field,
            "must be a target name (1-50 characters of a-z, 0-9, '_' and '-', starting with a"
                + " letter or digit), was '"
                + printable(name)
                + "'");
      }
      if (name.equals(self)) {
        throw parser.invalid(field, "a target cannot depend on itself ('" + name + "')");
      }
      if (names.contains(name)) {
        throw parser.invalid(field, "'" + name + "' is listed twice");
      }
      names.add(name);
    }
    return List.copyOf(names);
  }

  /** The settle period given, or null for the default (one interval); only with parents. */
  Duration settle(List<String> parents) {
    Duration settle = parser.duration("dependencySettle", null, Duration.ZERO, MAX_SETTLE);
    if (settle != null && parents.isEmpty()) {
      throw parser.invalid("dependencySettle", "needs dependsOn (a target without parents)");
    }
    return settle;
  }
}
