package dev.vigil.notifier.delivery;

import java.time.Instant;
import java.util.UUID;

/**
 * A head-of-line receipt (one event on one channel) claimed by one worker: only the holder of
 * {@code token} may record its outcome, and only until another worker claims it after the lease.
 *
 * @param attempts attempts including this one
 * @param channel the channel this delivery goes to
 */
record Claim(
    UUID eventId,
    String service,
    String kind,
    String payload,
    int attempts,
    UUID token,
    Instant receivedAt,
    String channel) {

  /** A claim on the default signed-webhook channel. */
  Claim(
      UUID eventId,
      String service,
      String kind,
      String payload,
      int attempts,
      UUID token,
      Instant receivedAt) {
    this(eventId, service, kind, payload, attempts, token, receivedAt, "webhook");
  }
}
