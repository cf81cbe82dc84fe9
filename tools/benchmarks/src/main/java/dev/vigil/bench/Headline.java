package dev.vigil.bench;

/**
 * A headline figure compared with its aim from the issue.
 *
 * @param name what is compared, e.g. "relay live / database commit limit"
 * @param value the measured figure (NaN when it could not be measured)
 * @param unit "x", "events/s", "ms", ...
 * @param aim the aim as text, e.g. "≥ 0.9x"
 * @param met whether the aim is met (null when not measured)
 */
public record Headline(String name, double value, String unit, String aim, Boolean met) {

  /** A figure that must be at least {@code min}. */
  public static Headline atLeast(String name, double value, String unit, double min) {
    return new Headline(
        name,
        value,
        unit,
        "≥ " + format(min) + " " + unit,
        Double.isNaN(value) ? null : value >= min);
  }

  /** A figure that must be at most {@code max}. */
  public static Headline atMost(String name, double value, String unit, double max) {
    return new Headline(
        name,
        value,
        unit,
        "≤ " + format(max) + " " + unit,
        Double.isNaN(value) ? null : value <= max);
  }

  /** A figure shown for context, with no aim in the issue. */
  public static Headline info(String name, double value, String unit) {
    return new Headline(name, value, unit, "", null);
  }

  String verdict() {
    if (aim.isEmpty()) {
      return Double.isNaN(value) ? "not measured" : "context";
    }
    return met == null ? "not measured" : met ? "met" : "missed";
  }

  static String format(double v) {
    if (Double.isNaN(v)) {
      return "–";
    }
    if (Math.abs(v) >= 100 || v == Math.rint(v)) {
      return String.format("%,.0f", v);
    }
    if (Math.abs(v) >= 10) {
      return String.format("%.1f", v);
    }
    return String.format("%.2f", v);
  }
}
