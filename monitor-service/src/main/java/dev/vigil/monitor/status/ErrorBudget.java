package dev.vigil.monitor.status;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Objects;

/**
 * A service's objective over its window and what is left of its error budget: the budget is the
 * share of checks allowed to be DOWN, {@code (100 - slo)%} of the window; what is left is {@code 1
 * - (DOWN share / allowed share)}, negative once the objective is missed. Maintenance checks count
 * neither way. Shown floored, so a page never shows more budget than is left.
 *
 * @param slo the objective in percent, above 0 and below 100
 * @param windowDays the days it is measured over
 * @param uptime the checks of the window (maintenance apart)
 */
record ErrorBudget(BigDecimal slo, int windowDays, Uptime uptime) {
  private static final long MINUTES_PER_DAY = 1440;
  private static final BigDecimal HUNDRED = BigDecimal.valueOf(100);
  private static final BigDecimal QUARTER = new BigDecimal("0.25");

  ErrorBudget {
    Objects.requireNonNull(slo, "slo");
    Objects.requireNonNull(uptime, "uptime");
    if (slo.signum() <= 0 || slo.compareTo(BigDecimal.valueOf(100)) >= 0 || windowDays < 1) {
      throw new IllegalArgumentException("slo must be in (0, 100) and the window at least a day");
    }
  }

  /** {@code 99.9%}. */
  String target() {
    return slo.stripTrailingZeros().toPlainString() + "%";
  }

  /** {@code 30 days}. */
  String window() {
    return windowDays + (windowDays == 1 ? " day" : " days");
  }

  /** The uptime of the window, as the status page shows uptime. */
  String attained() {
    return uptime.percent();
  }

  /** The budget of the whole window in minutes. */
  BigDecimal budgetMinutes() {
    return BigDecimal.valueOf(windowDays * MINUTES_PER_DAY)
        .multiply(allowedPercent())
        .divide(HUNDRED, MathContext.DECIMAL64);
  }

  /**
   * The share of the budget left (1 = untouched, negative = objective missed); null without data.
   */
  BigDecimal leftShare() {
    if (uptime.total() == 0) {
      return null;
    }
    BigDecimal downPercent =
        BigDecimal.valueOf(uptime.down())
            .multiply(HUNDRED)
            .divide(BigDecimal.valueOf(uptime.total()), MathContext.DECIMAL64);
    return BigDecimal.ONE.subtract(downPercent.divide(allowedPercent(), MathContext.DECIMAL64));
  }

  /** {@code 57.3%} of the budget left, or {@code no data}. */
  String left() {
    BigDecimal left = leftShare();
    return left == null ? "no data" : oneDecimal(left.multiply(HUNDRED)) + "%";
  }

  /** {@code 24.7 min} left (negative: overspent), or {@code no data}. */
  String minutesLeft() {
    BigDecimal left = leftShare();
    return left == null ? "no data" : oneDecimal(left.multiply(budgetMinutes())) + " min";
  }

  /** {@code 43.2 min}: the budget of the whole window. */
  String minutesTotal() {
    return oneDecimal(budgetMinutes()) + " min";
  }

  /** good (more than a quarter left), fair (some left), bad (none), none (no data). */
  String grade() {
    BigDecimal left = leftShare();
    if (left == null) {
      return "none";
    }
    return left.compareTo(QUARTER) > 0 ? "good" : left.signum() > 0 ? "fair" : "bad";
  }

  private BigDecimal allowedPercent() {
    return HUNDRED.subtract(slo);
  }

  // Floored, never rounded up: the page never shows more budget than is left.
  private static String oneDecimal(BigDecimal value) {
    return value.setScale(1, RoundingMode.FLOOR).toPlainString();
  }
}
