package dev.vigil.notifier.channel;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.webhook.WebhookSignature;
import dev.vigil.notifier.webhook.WebhookRoute;
import dev.vigil.notifier.webhook.WebhookRoutes;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The signed webhook (the default channel, {@value #NAME}): the event's canonical JSON, {@code
 * Idempotency-Key}, Standard Webhooks headers signed with the route's secrets, optional bearer
 * token; the URL per service from {@code VIGIL_WEBHOOK_URL} and {@code VIGIL_WEBHOOK_ROUTES}. Every
 * kind, REMINDER included, is sent as is. Answer bodies are discarded.
 */
public final class WebhookChannel implements Channel {
  public static final String NAME = "webhook";

  private final WebhookRoutes routes;
  private final Clock clock;

  public WebhookChannel(WebhookRoutes routes, Clock clock) {
    this.routes = routes;
    this.clock = clock;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Optional<ChannelRequest> request(AlertEvent event, String payload) {
    return Optional.of(signed(event.eventId(), event.service(), payload));
  }

  /**
   * The signed POST of {@code payload} as stored, without reading it (the webhook sends the
   * receipt's body as is).
   */
  public ChannelRequest signed(UUID eventId, String service, String payload) {
    WebhookRoute route = routes.routeFor(service);
    byte[] body = payload.getBytes(StandardCharsets.UTF_8);
    String id = eventId.toString();
    long timestamp = clock.instant().getEpochSecond();
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Content-Type", "application/json");
    headers.put("Idempotency-Key", id);
    headers.put(WebhookSignature.HEADER_ID, id);
    headers.put(WebhookSignature.HEADER_TIMESTAMP, Long.toString(timestamp));
    headers.put(
        WebhookSignature.HEADER_SIGNATURE,
        WebhookSignature.sign(route.secrets(), id, timestamp, body));
    if (route.bearerToken() != null) {
      headers.put("Authorization", "Bearer " + route.bearerToken());
    }
    return new ChannelRequest(route.url(), headers, body, false);
  }
}
