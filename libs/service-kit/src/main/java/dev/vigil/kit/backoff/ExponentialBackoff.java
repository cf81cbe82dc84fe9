package dev.vigil.kit.backoff;

import java.time.Duration;
import java.util.Objects;

/**
 * The pause before the next attempt of a retry loop: {@code initial}, then twice the previous
 * pause, never more than {@code max}; {@link #reset()} after a success starts again from {@code
 * initial}. The pause never overflows however many attempts fail. Not thread-safe: one retry loop
 * owns one instance.
 */
public final class ExponentialBackoff {
  private final Duration initial;
  private final Duration max;
  private Duration next;

  /**
   * @throws IllegalArgumentException if {@code initial} is not positive or {@code max} is less than
   *     {@code initial}
   */
  public ExponentialBackoff(Duration initial, Duration max) {
    Objects.requireNonNull(initial, "initial");
    Objects.requireNonNull(max, "max");
    if (initial.isNegative() || initial.isZero()) {
      throw new IllegalArgumentException("initial backoff must be positive, was " + initial);
    }
    if (max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          "max backoff " + max + " must not be less than the initial " + initial);
    }
    this.initial = initial;
    this.max = max;
    this.next = initial;
  }

  /** The pause to wait now; the one after it is twice as long, up to the cap. */
  public Duration next() {
    Duration current = next;
    next = current.compareTo(max.dividedBy(2)) > 0 ? max : current.multipliedBy(2);
    return current;
  }

  /** After a success: the next pause is the initial one again. */
  public void reset() {
    next = initial;
  }
}
