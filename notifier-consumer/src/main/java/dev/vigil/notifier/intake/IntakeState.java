package dev.vigil.notifier.intake;

import dev.vigil.kit.SafeText;

/**
 * What intake is doing: consuming, or down with a cause and a readable (sanitised) reason.
 *
 * @param cause null while intake works
 * @param reason why it is down, null while it works
 */
public record IntakeState(Cause cause, String reason) {
  /** Why intake is down. */
  public enum Cause {
    /** A batch could not be stored (database unreachable); intake retries it with backoff. */
    DATABASE,
    /** The Kafka consumer failed (poll, commit, rebalance); intake restarts it with backoff. */
    KAFKA,
    /** Intake was stopped. */
    STOPPED
  }

  static final IntakeState UP = new IntakeState(null, null);

  static IntakeState down(Cause cause, String reason) {
    return new IntakeState(cause, SafeText.text(reason, SafeText.MAX_REASON));
  }

  public boolean up() {
    return cause == null;
  }
}
