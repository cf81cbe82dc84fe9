package dev.vigil.drills.chaos;

/** What the {@link ChaosProxy} does with the next request. */
public enum ChaosMode {
  /** Forward to the receiver and pass its answer back. */
  PASS,
  /** Answer 503 without forwarding. */
  UNAVAILABLE,
  /** Forward (the receiver stores), then hold the answer longer than the notifier's timeout. */
  SLOW,
  /** Answer 429 with {@code Retry-After} without forwarding. */
  TOO_MANY_REQUESTS,
  /** Reset the connection (TCP RST) without forwarding. */
  RESET_BEFORE,
  /** Forward (the receiver stores), then reset the connection: the acknowledgement is lost. */
  RESET_AFTER
}
