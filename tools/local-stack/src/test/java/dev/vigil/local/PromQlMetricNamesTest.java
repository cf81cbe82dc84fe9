package dev.vigil.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PromQlMetricNamesTest {

  @Test
  void findsTheMetricsButNotFunctionsAggregationsOrLabels() {
    assertThat(
            PromQlMetricNames.of(
                "(sum(vigil_relay_active{job=\"vigil-relay\"}) or vector(0)) != 1"))
        .containsExactly("vigil_relay_active");
    assertThat(
            PromQlMetricNames.of(
                "max by (job) (lag_bytes{job=\"a\"}) > 64 * 1024 * 1024\n"
                    + "and max by (job) (deriv(lag_bytes[15m])) > 0"))
        .containsExactly("lag_bytes");
    assertThat(
            PromQlMetricNames.of(
                "histogram_quantile(0.99, sum by (le, instance) (rate(h_bucket[5m])))"))
        .containsExactly("h_bucket");
  }

  @Test
  void skipsVectorMatchingLabelListsKeywordsInAnyCaseAndOffsets() {
    assertThat(
            PromQlMetricNames.of(
                "a_total / ON (instance) group_left (version) b_info offset 5m UNLESS c bool > 1"))
        .containsExactly("a_total", "b_info", "c");
    assertThat(PromQlMetricNames.of("x / ignoring(code) group_right y")).containsExactly("x", "y");
  }

  @Test
  void skipsStringsLabelValuesNumbersAndGrafanaVariables() {
    assertThat(
            PromQlMetricNames.of(
                "q{l=\"} or not_a_metric {\", m=~'x|y'} > 1e-3 + 0x1F * Inf - NaN"
                    + " + rate(r_total[$__rate_interval]) + count_values(\"v\", s)"))
        .containsExactly("q", "r_total", "s");
    assertThat(PromQlMetricNames.of("recorded:rule:rate5m # comment names up"))
        .containsExactly("recorded:rule:rate5m");
  }

  @Test
  void refusesAnExpressionItCannotTokenize() {
    assertThatThrownBy(() -> PromQlMetricNames.of("m{l=\"open}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unterminated string");
    assertThatThrownBy(() -> PromQlMetricNames.of("rate(m[5m)")).hasMessageContaining("unbalanced");
  }
}
