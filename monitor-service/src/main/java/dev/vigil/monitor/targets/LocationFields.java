package dev.vigil.monitor.targets;

import static dev.vigil.monitor.targets.CheckFields.printable;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.contract.AlertEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a definition's {@code locations} and {@code quorum}. Unknown location names are allowed (an
 * instance of that location may join later); everything else that could make the quorum rule
 * meaningless is refused with the field named: an empty list, a name outside {@code
 * [a-z0-9][a-z0-9-]{0,31}} (including NUL and control characters), duplicates, a quorum of 0 or
 * above the number of locations, a quorum without locations.
 */
final class LocationFields {
  private final TargetParser parser;
  private final JsonNode node;

  LocationFields(TargetParser parser, JsonNode node) {
    this.parser = parser;
    this.node = node;
  }

  /** The listed locations in the order given; empty when the field is absent. */
  List<String> locations() {
    JsonNode value = node.get("locations");
    if (value == null || value.isNull()) {
      return List.of();
    }
    if (!value.isArray()) {
      throw parser.invalid("locations", "must be a list of location names");
    }
    if (value.isEmpty()) {
      throw parser.invalid("locations", "must not be empty (leave it out to probe from one place)");
    }
    if (value.size() > TargetSpec.MAX_LOCATIONS) {
      throw parser.invalid("locations", "has more than " + TargetSpec.MAX_LOCATIONS + " locations");
    }
    List<String> names = new ArrayList<>();
    for (int i = 0; i < value.size(); i++) {
      String field = "locations[" + i + "]";
      JsonNode element = value.get(i);
      if (!element.isTextual()) {
        throw parser.invalid(field, "must be a string");
      }
      String name = element.asText();
      if (!printable(name).equals(name)) {
        throw parser.invalid(field, "contains control characters (NUL, CR, LF, ...)");
      }
      if (!AlertEvent.LOCATION_NAME.matcher(name).matches()) {
        throw parser.invalid(
            field,
            "must be 1-32 characters of a-z, 0-9 and '-', starting with a letter or digit, was '"
                + printable(name)
                + "'");
      }
      if (names.contains(name)) {
        throw parser.invalid(field, "'" + name + "' is listed twice");
      }
      names.add(name);
    }
    return List.copyOf(names);
  }

  /** The quorum given, or null for the default (a majority); checked against {@code locations}. */
  Integer quorum(List<String> locations) {
    JsonNode value = node.get("quorum");
    if (value == null || value.isNull()) {
      return null;
    }
    if (locations.isEmpty()) {
      throw parser.invalid("quorum", "needs locations (a target probed from one place has none)");
    }
    return parser.integer("quorum", 0, 1, locations.size());
  }
}
