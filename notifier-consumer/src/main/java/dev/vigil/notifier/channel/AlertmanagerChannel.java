package dev.vigil.notifier.channel;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.kit.tracing.TraceParent;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Alertmanager API v2: {@code POST <url>/api/v2/alerts} with one alert (see {@link
 * AlertmanagerAlert}), so teams that route everything through Alertmanager get Vigil's alerts with
 * their own routes, grouping, inhibitions and silences. FAILED and REMINDER post it firing with
 * {@code endsAt} = occurredAt + {@code firingFor} (default 7 days: Alertmanager resolves an alert
 * whose endsAt passed, and one it has not heard of for {@code resolve_timeout} when endsAt is
 * missing); RECOVERED posts the same labels with {@code endsAt} = its occurredAt, which resolves
 * it. Alertmanager answers 200; 400 for an invalid alert (dead).
 */
public final class AlertmanagerChannel implements Channel {
  public static final Duration DEFAULT_FIRING_FOR = Duration.ofDays(7);

  private final String name;
  private final URI alerts;
  private final String severity;
  private final Duration firingFor;
  private final PublicLinks links;

  /**
   * @param url Alertmanager's base URL, e.g. {@code http://alertmanager:9093}
   */
  public AlertmanagerChannel(
      String name, URI url, String severity, Duration firingFor, PublicLinks links) {
    this.name = Objects.requireNonNull(name);
    String base = url.toString();
    this.alerts = URI.create((base.endsWith("/") ? base : base + "/") + "api/v2/alerts");
    this.severity = Objects.requireNonNull(severity);
    if (firingFor.isNegative() || firingFor.isZero()) {
      throw new IllegalArgumentException("firingFor must be positive");
    }
    this.firingFor = firingFor;
    this.links = links;
  }

  @Override
  public String endpoint() {
    return alerts.toString();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Optional<ChannelRequest> request(AlertEvent event, String payload) {
    return request(event, payload, null);
  }

  @Override
  public Optional<ChannelRequest> request(AlertEvent event, String payload, TraceParent trace) {
    ArrayNode body = AlertEventJson.mapper().createArrayNode();
    body.add(AlertmanagerAlert.posted(event, severity, firingFor, links, trace));
    return Optional.of(ChannelRequest.json(alerts, body.toString()));
  }
}
