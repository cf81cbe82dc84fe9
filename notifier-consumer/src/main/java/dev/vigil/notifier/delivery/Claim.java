package dev.vigil.notifier.delivery;

import java.time.Instant;
import java.util.UUID;

/**
 * A head-of-line receipt (one event on one channel) claimed by one worker: only the holder of
 * {@code token} may record its outcome, and only until another worker claims it after the lease.
 *
 * @param attempts attempts including this one
 * @param channel the channel this delivery goes to
 * @param traceparent the W3C traceparent the event's record carried (checked at intake), which the
 *     delivery's span continues; null: the delivery starts a trace of its own
 */
record Claim(
    UUID eventId,
    String service,
    String kind,
    String payload,
    int attempts,
    UUID token,
    Instant receivedAt,
    String channel,
    String traceparent) {

  /** A claim without trace context. */
  Claim(
      UUID eventId,
      String service,
      String kind,
      String payload,
      int attempts,
      UUID token,
      Instant receivedAt,
      String channel) {
    this(eventId, service, kind, payload, attempts, token, receivedAt, channel, null);
  }

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
