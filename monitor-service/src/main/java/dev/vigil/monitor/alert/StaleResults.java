package dev.vigil.monitor.alert;

import java.time.Instant;

/**
 * The one rule for a result that arrives older than the last one recorded, for a service probed
 * from one place ({@link ServiceRun}) and for each location of a target probed from several ({@link
 * LocationRun}), whose claim numbers interleave.
 */
final class StaleResults {
  private StaleResults() {}

  /**
   * Why {@code candidate} is older than the last recorded result, or null: a claim number not above
   * the last recorded one, or a pushed result whose start time is not after the checker's last one
   * (an external checker's clock is compared only with itself).
   *
   * @param whose empty for a service, or e.g. {@code " of location eu-west"}
   */
  static String reason(ProbeResult candidate, Long lastSeq, Instant pushedStartedAt, String whose) {
    if (candidate.order() != null && lastSeq != null && candidate.order() <= lastSeq) {
      return "stale: result #"
          + candidate.order()
          + " was claimed before the last recorded one"
          + whose
          + " (#"
          + lastSeq
          + ")";
    }
    if (candidate.source() == ResultSource.PUSH
        && candidate.startedAt() != null
        && pushedStartedAt != null
        && !candidate.startedAt().isAfter(pushedStartedAt)) {
      return "stale: startedAt "
          + candidate.startedAt()
          + " is not after the last pushed startedAt"
          + whose
          + " "
          + pushedStartedAt;
    }
    return null;
  }
}
