package dev.vigil.monitor.targets;

import java.util.ArrayList;
import java.util.List;

/**
 * The HTTP status codes that count as UP, written as {@code 200-299,301}.
 *
 * @param spec the normalized text form, as stored
 */
public record StatusCodes(String spec) {
  /** The default: any 2xx. */
  public static final StatusCodes SUCCESS = parse("200-299");

  public StatusCodes {
    ranges(spec);
  }

  /**
   * Parses {@code 200}, {@code 200-299} or a comma-separated list of those.
   *
   * @throws IllegalArgumentException naming the part that is wrong
   */
  public static StatusCodes parse(String spec) {
    return new StatusCodes(spec.replace(" ", ""));
  }

  /** Whether {@code status} is accepted. */
  public boolean accepts(int status) {
    for (int[] range : ranges(spec)) {
      if (status >= range[0] && status <= range[1]) {
        return true;
      }
    }
    return false;
  }

  private static List<int[]> ranges(String spec) {
    if (spec == null || spec.isBlank()) {
      throw new IllegalArgumentException("must list at least one status code");
    }
    List<int[]> ranges = new ArrayList<>();
    for (String part : spec.split(",")) {
      String[] bounds = part.split("-", -1);
      if (bounds.length > 2) {
        throw new IllegalArgumentException("'" + part + "' is not a code or a range like 200-299");
      }
      int low = code(bounds[0], part);
      int high = bounds.length == 2 ? code(bounds[1], part) : low;
      if (high < low) {
        throw new IllegalArgumentException("range '" + part + "' is empty");
      }
      ranges.add(new int[] {low, high});
    }
    return ranges;
  }

  private static int code(String text, String part) {
    try {
      int code = Integer.parseInt(text);
      if (code >= 100 && code <= 599) {
        return code;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("'" + part + "' is not an HTTP status code (100-599)");
  }
}
