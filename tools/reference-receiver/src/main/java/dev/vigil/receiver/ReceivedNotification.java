package dev.vigil.receiver;

import dev.vigil.contract.AlertEvent;
import java.time.Instant;

/**
 * A notification the receiver stored for the first time.
 *
 * @param traceparent the request's W3C {@code traceparent} header as sent (the notifier's delivery
 *     span), or null; not checked here, a receiver that continues the trace parses it
 */
public record ReceivedNotification(
    String webhookId, AlertEvent event, Instant receivedAt, String traceparent) {

  /** A notification that came without trace context. */
  public ReceivedNotification(String webhookId, AlertEvent event, Instant receivedAt) {
    this(webhookId, event, receivedAt, null);
  }
}
