package dev.vigil.monitor.status;

/**
 * A shields-style SVG badge, {@code label | value}. Widths are estimated from the text (about 7 px
 * a character at 11 px Verdana); both texts are escaped by the template. The colour comes from
 * code, never from input.
 */
record Badge(
    String label,
    String value,
    String color,
    int labelWidth,
    int valueWidth,
    int width,
    String labelX,
    String valueX) {
  /** Longest label kept, in characters. */
  static final int MAX_TEXT = 60;

  static Badge of(String label, String value, String color) {
    String safeLabel = Format.text(label, MAX_TEXT);
    String safeValue = Format.text(value, MAX_TEXT);
    int labelWidth = textWidth(safeLabel);
    int valueWidth = textWidth(safeValue);
    return new Badge(
        safeLabel,
        safeValue,
        color,
        labelWidth,
        valueWidth,
        labelWidth + valueWidth,
        Format.number(labelWidth / 2.0),
        Format.number(labelWidth + valueWidth / 2.0));
  }

  /** The state badge's colour: green up, red down, grey otherwise. */
  static String stateColor(String state) {
    return switch (state) {
      case "UP" -> "#2e7d32";
      case "DOWN" -> "#c62828";
      default -> "#757575";
    };
  }

  /** The uptime badge's colour by {@link Uptime#grade()}. */
  static String uptimeColor(String grade) {
    return switch (grade) {
      case "good" -> "#2e7d32";
      case "fair" -> "#9e9d24";
      case "poor" -> "#ef6c00";
      case "bad" -> "#c62828";
      default -> "#757575";
    };
  }

  private static int textWidth(String text) {
    return 10 + 7 * text.codePointCount(0, text.length());
  }
}
