package dev.vigil.drills.falsepage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.drills.falsepage.PageCount.Received;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PageCountTest {
  private static final Set<String> OUTAGES = Set.of("fp-001", "fp-002");

  @Test
  void exactlyTheRealOutagesPagedAndRecoveredPasses() {
    PageCount count =
        PageCount.of(
            List.of(
                new Received("fp-001", "FAILED"),
                new Received("fp-001", "RECOVERED"),
                new Received("fp-002", "FAILED"),
                new Received("fp-002", "RECOVERED")),
            OUTAGES);
    assertThat(count).isEqualTo(new PageCount(2, 2, 0, 0, 0, 0));
    assertThat(count.passed(2)).isTrue();
  }

  @Test
  void aPageForAHealthyTargetIsFalseAndFails() {
    PageCount count =
        PageCount.of(
            List.of(
                new Received("fp-001", "FAILED"),
                new Received("fp-001", "RECOVERED"),
                new Received("fp-002", "FAILED"),
                new Received("fp-002", "RECOVERED"),
                new Received("fp-007", "FAILED"),
                new Received("fp-007", "RECOVERED"),
                new Received("fp-008", "FAILED"),
                new Received("fp-008", "RECOVERED"),
                new Received("fp-008", "FAILED")),
            OUTAGES);
    assertThat(count.falsePages()).isEqualTo(3);
    assertThat(count.falsePageTargets()).isEqualTo(2);
    assertThat(count.passed(2)).isFalse();
  }

  @Test
  void aSecondPageForARealOutageIsFalseToo() {
    PageCount count =
        PageCount.of(
            List.of(
                new Received("fp-001", "FAILED"),
                new Received("fp-001", "RECOVERED"),
                new Received("fp-001", "FAILED"),
                new Received("fp-001", "RECOVERED"),
                new Received("fp-002", "FAILED"),
                new Received("fp-002", "RECOVERED")),
            OUTAGES);
    assertThat(count.falsePages()).isEqualTo(1);
    assertThat(count.falsePageTargets()).isZero();
    assertThat(count.passed(2)).isFalse();
  }

  @Test
  void anOutageWithoutAPageIsMissedAndOneWithoutRecoveryIsUnrecovered() {
    PageCount count = PageCount.of(List.of(new Received("fp-002", "FAILED")), OUTAGES);
    assertThat(count.missed()).isEqualTo(1);
    assertThat(count.unrecovered()).isEqualTo(1);
    assertThat(count.passed(2)).isFalse();
  }
}
