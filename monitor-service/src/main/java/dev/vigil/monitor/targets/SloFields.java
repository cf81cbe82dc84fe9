package dev.vigil.monitor.targets;

import static dev.vigil.monitor.targets.CheckFields.printable;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a definition's {@code slo} and {@code sloWindow}. The objective is a percentage of checks
 * that are UP, written {@code 99.9%} or {@code 99.9}, above 0 and below 100 with at most 4
 * decimals; the window is whole days, {@code 1d} to {@code 30d} (default 30d). Refused with the
 * field named: another type, NUL and control characters, a number out of range or with more
 * decimals, a window that is not whole days or outside the range, a window without an objective.
 */
final class SloFields {
  private static final Pattern PERCENT = Pattern.compile("(\\d{1,3}(?:\\.\\d{1,4})?)\\s*%?");
  private static final Pattern DAYS = Pattern.compile("(\\d{1,3})\\s*d");

  private final TargetParser parser;
  private final JsonNode node;

  SloFields(TargetParser parser, JsonNode node) {
    this.parser = parser;
    this.node = node;
  }

  /** The objective in percent, or null when the field is absent. */
  BigDecimal slo() {
    JsonNode value = node.get("slo");
    if (value == null || value.isNull()) {
      return null;
    }
    String text;
    if (value.isNumber()) {
      // Range first: a huge or tiny number is refused before it is written out in full.
      double number = value.doubleValue();
      if (!(number > 0 && number < 100)) {
        throw parser.invalid("slo", "must be above 0% and below 100%, was " + value.asText());
      }
      text = value.decimalValue().toPlainString();
    } else if (value.isTextual()) {
      text = value.asText().strip();
      if (!printable(text).equals(text) || text.length() > 32) {
        throw parser.invalid("slo", "must be a percentage like 99.9%, was '" + shown(text) + "'");
      }
    } else {
      throw parser.invalid("slo", "must be a percentage like 99.9% or a number like 99.9");
    }
    Matcher matcher = PERCENT.matcher(text);
    if (!matcher.matches()) {
      throw parser.invalid(
          "slo",
          "must be a percentage above 0 and below 100 with at most 4 decimals, like 99.9%, was '"
              + shown(text)
              + "'");
    }
    BigDecimal percent = new BigDecimal(matcher.group(1)).stripTrailingZeros();
    if (percent.signum() <= 0 || percent.compareTo(TargetSpec.MAX_SLO) >= 0) {
      throw parser.invalid(
          "slo", "must be above 0% and below 100% (no window allows no failure), was " + text);
    }
    return percent;
  }

  /**
   * The window in days: as given, or {@link #TargetSpec.DEFAULT_SLO_WINDOW_DAYS}; only with an
   * objective.
   */
  int windowDays(BigDecimal slo) {
    JsonNode value = node.get("sloWindow");
    if (value == null || value.isNull()) {
      return TargetSpec.DEFAULT_SLO_WINDOW_DAYS;
    }
    if (slo == null) {
      throw parser.invalid("sloWindow", "needs slo (a target without an objective)");
    }
    String text = value.isTextual() ? value.asText().strip().toLowerCase(Locale.ROOT) : "";
    Matcher matcher = DAYS.matcher(text);
    if (!value.isTextual() || !matcher.matches()) {
      throw parser.invalid(
          "sloWindow",
          "must be whole days like 7d or 30d, was '" + shown(value.asText().strip()) + "'");
    }
    int days = Integer.parseInt(matcher.group(1));
    if (days < 1 || days > TargetSpec.MAX_SLO_WINDOW_DAYS) {
      throw parser.invalid(
          "sloWindow",
          "must be between 1d and " + TargetSpec.MAX_SLO_WINDOW_DAYS + "d, was " + days + "d");
    }
    return days;
  }

  private static String shown(String text) {
    String printable = printable(text);
    return printable.length() > 40 ? printable.substring(0, 40) + "..." : printable;
  }
}
