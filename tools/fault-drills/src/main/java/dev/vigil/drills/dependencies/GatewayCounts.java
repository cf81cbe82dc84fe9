package dev.vigil.drills.dependencies;

/**
 * What the receiver got in a gateway scenario (a or b).
 *
 * @param gatewayFailed the gateway's FAILED events
 * @param failedImpact the children its (first) FAILED counted, or -1 without impact
 * @param childFailedWhileDown children's FAILED received while the gateway was down
 * @param held children's incidents open and held back while the gateway was down
 * @param gatewayRecovered the gateway's RECOVERED events
 * @param recoveredImpact the children its (first) RECOVERED counted (children still down at that
 *     moment: those that stay down and any whose recovery probe had not come yet), or -1
 * @param childFailedAfter children's FAILED received once the settle period was over
 * @param independentFailed FAILED of independent services
 * @param independentRecovered RECOVERED of independent services
 * @param independentPagedWithoutOutage FAILED of independent services that had no outage
 */
public record GatewayCounts(
    long gatewayFailed,
    int failedImpact,
    long childFailedWhileDown,
    long held,
    long gatewayRecovered,
    int recoveredImpact,
    long childFailedAfter,
    long independentFailed,
    long independentRecovered,
    long independentPagedWithoutOutage) {

  /**
   * The acceptance: exactly one FAILED (the gateway's, impact = children) and no child
   * FAILED while it is down; after its recovery one RECOVERED and exactly the children that stayed
   * down paged; independent services paged once and recovered once each per outage, none without.
   * The RECOVERED's impact is reported, not judged: it counts children whose own recovery probe had
   * not come yet.
   */
  public boolean passed(DependenciesOptions o) {
    return gatewayFailed == 1
        && failedImpact == o.children()
        && childFailedWhileDown == 0
        && gatewayRecovered == 1
        && recoveredImpact >= o.stayDown()
        && childFailedAfter == o.stayDown()
        && independentFailed == o.failingIndependents()
        && independentRecovered == o.failingIndependents()
        && independentPagedWithoutOutage == 0;
  }
}
