package dev.vigil.notifier.channel;

import dev.vigil.contract.AlertEvent;
import dev.vigil.kit.tracing.TraceParent;
import java.util.Optional;

/**
 * One place alerts go. A channel only builds requests (pure, no I/O); the delivery loop sends them
 * with its shared HTTP client, timeouts, retries and backoff, and classifies the answer (2xx
 * delivered; 408, 429, 5xx retried; other 4xx and 3xx dead). The one exception is {@link
 * EmailChannel}: it builds an {@link EmailMessage} the delivery loop sends over SMTP, and its
 * {@link #request} is never called.
 */
public interface Channel {
  /** The name routes refer to; also the {@code channel} column and metric tag. */
  String name();

  /**
   * What the vendor counts its rate limit against (Slack: the incoming-webhook URL; PagerDuty: the
   * routing key). Often a secret: only its digest leaves the process (see {@link RateLimit}).
   */
  default String endpoint() {
    return name();
  }

  /**
   * The request announcing {@code event}, whose canonical JSON is {@code payload}; empty when this
   * channel deliberately sends nothing for this kind (the delivery is then recorded as skipped by
   * the channel, and the service's next event on this channel goes on).
   */
  Optional<ChannelRequest> request(AlertEvent event, String payload);

  /**
   * The request announcing {@code event} from within the delivery's span {@code trace} (null: not
   * traced). The delivery loop sends {@code traceparent} as an HTTP header on every request; a
   * channel whose body can carry it too (Alertmanager's annotations) overrides this.
   */
  default Optional<ChannelRequest> request(AlertEvent event, String payload, TraceParent trace) {
    return request(event, payload);
  }
}
