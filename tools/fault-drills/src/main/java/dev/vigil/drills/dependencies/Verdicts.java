package dev.vigil.drills.dependencies;

import java.time.Duration;

/** The pass rules of scenarios c and d, apart from the drill so a test can check them. */
final class Verdicts {
  /**
   * What the relay and the notifier may add after the announcer committed a FAILED before it
   * reaches the receiver: the issue counts the FAILED's arrival, the announcer controls its commit.
   */
  static final Duration DELIVERY_ALLOWANCE = Duration.ofSeconds(2);

  private Verdicts() {}

  /**
   * Scenario c: the one service's FAILED, and none of the maintenance window's, committed within
   * one announce interval of its silence's end and received within that plus the delivery
   * allowance.
   */
  static boolean silenceEnd(
      long payFailed,
      long maintenanceFailed,
      long committedMs,
      long receivedMs,
      Duration announce) {
    return payFailed == 1
        && maintenanceFailed == 0
        && committedMs >= 0
        && committedMs <= announce.toMillis()
        && receivedMs <= announce.plus(DELIVERY_ALLOWANCE).toMillis();
  }

  /** Scenario d: one page per parent, none for their children. */
  static boolean storm(long parentFailed, long childFailed, int parents) {
    return parentFailed == parents && childFailed == 0;
  }
}
