package dev.vigil.monitor.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

/** The error budget a service page shows: its size, what is left, floored, and no data. */
class ErrorBudgetTest {

  @Test
  void thirtyDaysAt99Point9PercentAre43Point2MinutesAndHalfIsLeftAtHalfTheAllowedDownShare() {
    // 1 DOWN in 2,000 checks is 0.05%, half of the 0.1% allowed.
    ErrorBudget budget = new ErrorBudget(new BigDecimal("99.9"), 30, new Uptime(1_999, 1));

    assertThat(budget.target()).isEqualTo("99.9%");
    assertThat(budget.window()).isEqualTo("30 days");
    assertThat(budget.attained()).isEqualTo("99.95%");
    assertThat(budget.minutesTotal()).isEqualTo("43.2 min");
    assertThat(budget.left()).isEqualTo("50.0%");
    assertThat(budget.minutesLeft()).isEqualTo("21.6 min");
    assertThat(budget.grade()).isEqualTo("good");
  }

  @Test
  void aMissedObjectiveLeavesANegativeBudgetFlooredNeverRoundedUp() {
    // 3 DOWN in 1,000 checks is 0.3%, three times the 0.1% allowed: -200% of the budget.
    ErrorBudget missed = new ErrorBudget(new BigDecimal("99.9"), 1, new Uptime(997, 3));
    // 1 DOWN in 3 checks against 50%: 1 - (1/3)/(1/2) = 33.33...%, shown 33.3%.
    ErrorBudget third = new ErrorBudget(new BigDecimal("50"), 1, new Uptime(2, 1));

    assertThat(missed.left()).isEqualTo("-200.0%");
    assertThat(missed.minutesLeft()).isEqualTo("-2.9 min"); // -2.88, floored
    assertThat(missed.grade()).isEqualTo("bad");
    assertThat(third.left()).isEqualTo("33.3%");
    assertThat(third.target()).isEqualTo("50%");
    assertThat(third.window()).isEqualTo("1 day");
  }

  @Test
  void aWindowWithoutChecksHasNoData() {
    ErrorBudget empty = new ErrorBudget(new BigDecimal("99"), 7, Uptime.NONE);

    assertThat(empty.left()).isEqualTo("no data");
    assertThat(empty.minutesLeft()).isEqualTo("no data");
    assertThat(empty.minutesTotal()).isEqualTo("100.8 min");
    assertThat(empty.grade()).isEqualTo("none");
  }

  @Test
  void anObjectiveOfAHundredPercentIsRefused() {
    assertThatThrownBy(() -> new ErrorBudget(BigDecimal.valueOf(100), 30, Uptime.NONE))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
