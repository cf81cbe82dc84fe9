package dev.vigil.notifier.intake;

import java.time.Duration;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * Whether the intake's Kafka consumer is in touch with the cluster. A consumer's {@code poll} does
 * not fail when no broker answers: it returns nothing, for ever, and intake would look healthy
 * while no alert can arrive (found by running the compose stack with a wrong bootstrap address).
 * Contact is an open connection to a broker: a group member heartbeats its coordinator even when it
 * owns no partition, so an idle member keeps one too. No connection for longer than the bound is
 * lost contact.
 */
final class BrokerContact {
  /** How long intake may have no connection to any broker before it counts as down. */
  static final Duration BOUND = Duration.ofSeconds(30);

  private final DoubleSupplier connections;
  private final LongSupplier nanos;
  private final Duration bound;
  private long lastContact;

  /**
   * @param connections the consumer's open broker connections now
   * @param nanos a monotonic clock
   * @param bound how long without a connection is lost contact
   */
  BrokerContact(DoubleSupplier connections, LongSupplier nanos, Duration bound) {
    this.connections = connections;
    this.nanos = nanos;
    this.bound = bound;
    this.lastContact = nanos.getAsLong();
  }

  /** Null while in touch (or not yet past the bound), else why contact is lost. */
  String lost() {
    long now = nanos.getAsLong();
    if (connections.getAsDouble() > 0) {
      lastContact = now;
      return null;
    }
    long silentMs = Duration.ofNanos(now - lastContact).toMillis();
    if (silentMs <= bound.toMillis()) {
      return null;
    }
    return "no connection to any Kafka broker for " + silentMs / 1000 + " s";
  }
}
