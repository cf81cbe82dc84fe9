package dev.vigil.drills.falsepage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class FaultPlanTest {
  private static FalsePageOptions options(Duration duration, long seed) {
    return FalsePageOptions.issueSized(null, duration, seed);
  }

  @Test
  void theSameSeedGivesTheSamePlan() {
    assertThat(FaultPlan.of(options(Duration.ofMinutes(5), 7)))
        .isEqualTo(FaultPlan.of(options(Duration.ofMinutes(5), 7)));
    assertThat(FaultPlan.of(options(Duration.ofMinutes(5), 7)))
        .isNotEqualTo(FaultPlan.of(options(Duration.ofMinutes(5), 8)));
  }

  @Test
  void singleLocationFaultsNeverOverlapAndStayInsideTheDrill() {
    FalsePageOptions options = options(Duration.ofMinutes(30), 29);
    FaultPlan plan = FaultPlan.of(options);
    List<FaultPlan.Fault> faults = plan.faults();
    for (int i = 1; i < faults.size(); i++) {
      FaultPlan.Fault before = faults.get(i - 1);
      assertThat(faults.get(i).at()).isGreaterThan(before.at().plus(before.length()));
    }
    assertThat(faults.getLast().at().plus(faults.getLast().length()))
        .isLessThanOrEqualTo(options.duration());
    assertThat(plan.count(FaultPlan.Kind.CUT)).isPositive();
    assertThat(plan.count(FaultPlan.Kind.BLIP)).isPositive();
    assertThat(plan.count(FaultPlan.Kind.KILL)).isPositive();
  }

  @Test
  void cutsAreLongEnoughToPageFromOneLocationAndBlipsAreNot() {
    FalsePageOptions options = options(Duration.ofMinutes(30), 3);
    long pageAfter = options.interval().multipliedBy(options.failureThreshold()).toMillis();
    for (FaultPlan.Fault fault : FaultPlan.of(options).faults()) {
      switch (fault.kind()) {
        case CUT -> assertThat(fault.length().toMillis()).isGreaterThan(pageAfter);
        case BLIP -> assertThat(fault.length()).isLessThan(options.interval().dividedBy(2));
        default -> {}
      }
    }
  }

  @Test
  void theRealOutagesHitDistinctTargetsApartFromEachOther() {
    FalsePageOptions options = options(Duration.ofSeconds(60), 1);
    List<FaultPlan.Fault> outages = FaultPlan.of(options).outages();
    assertThat(outages).hasSize(2);
    assertThat(outages.get(0).target()).isNotEqualTo(outages.get(1).target());
    assertThat(outages.get(1).at())
        .isGreaterThan(outages.get(0).at().plus(outages.get(0).length()));
    assertThat(outages.get(0).length()).isEqualTo(options.outageLength());
  }

  @Test
  void aDrillTooShortForItsOutagesIsRefused() {
    assertThatThrownBy(() -> options(Duration.ofSeconds(20), 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too short");
  }

  @Test
  void aQuorumAboveTheLocationsIsRefused() {
    assertThatThrownBy(() -> FalsePageOptions.issueSized(4, Duration.ofMinutes(1), 1))
        .hasMessageContaining("quorum must be between 1 and 3");
    assertThat(options(Duration.ofMinutes(1), 1).effectiveQuorum()).isEqualTo(2);
  }
}
