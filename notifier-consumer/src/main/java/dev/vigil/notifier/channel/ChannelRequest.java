package dev.vigil.notifier.channel;

import dev.vigil.notifier.webhook.WebhookRoute;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;

/**
 * One POST to send. {@code toString} shows neither the URL's path (chat webhooks carry their
 * credential there) nor header values.
 *
 * @param readErrorBody keep the start of a non-2xx answer's body for the delivery's error (e.g.
 *     PagerDuty's {@code errors}); bodies of 2xx answers are always discarded
 */
public record ChannelRequest(
    URI url, Map<String, String> headers, byte[] body, boolean readErrorBody) {
  public ChannelRequest {
    Objects.requireNonNull(url, "url");
    headers = Map.copyOf(headers);
    Objects.requireNonNull(body, "body");
  }

  /** A JSON POST that keeps the start of an error answer. */
  static ChannelRequest json(URI url, String json) {
    return new ChannelRequest(
        url,
        Map.of("Content-Type", "application/json"),
        json.getBytes(StandardCharsets.UTF_8),
        true);
  }

  /** The body as text (tests and fakes). */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "ChannelRequest[url="
        + WebhookRoute.redacted(url)
        + ", headers="
        + headers.keySet()
        + ", bytes="
        + body.length
        + "]";
  }
}
