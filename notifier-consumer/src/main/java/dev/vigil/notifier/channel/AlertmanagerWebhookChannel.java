package dev.vigil.notifier.channel;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.kit.tracing.TraceParent;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;

/**
 * For receivers built for Alertmanager's webhook: one POST per event in Alertmanager's webhook
 * format ({@code version: "4"}, {@code status}, {@code receiver}, {@code groupKey}, {@code
 * groupLabels} (service), {@code commonLabels}, {@code commonAnnotations}, {@code externalURL},
 * {@code truncatedAlerts}, {@code alerts[]} with one alert). A firing alert has {@code endsAt}
 * {@value #ZERO_TIME}, as Alertmanager sends it; RECOVERED is {@code resolved} with its endsAt.
 */
public final class AlertmanagerWebhookChannel implements Channel {
  static final String ZERO_TIME = "0001-01-01T00:00:00Z";

  private final String name;
  private final URI url;
  private final String severity;
  private final PublicLinks links;

  public AlertmanagerWebhookChannel(String name, URI url, String severity, PublicLinks links) {
    this.name = Objects.requireNonNull(name);
    this.url = Objects.requireNonNull(url);
    this.severity = Objects.requireNonNull(severity);
    this.links = links;
  }

  @Override
  public String endpoint() {
    return url.toString();
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
    String status = AlertmanagerAlert.resolved(event) ? "resolved" : "firing";
    ObjectNode labels = AlertmanagerAlert.labels(event, severity);
    ObjectNode annotations = AlertmanagerAlert.annotations(event, trace);
    ObjectNode body = AlertEventJson.mapper().createObjectNode();
    body.put("version", "4");
    body.put("groupKey", "{}:{service=\"" + event.service() + "\"}");
    body.put("truncatedAlerts", 0);
    body.put("status", status);
    body.put("receiver", name);
    body.putObject("groupLabels").put("service", event.service());
    body.set("commonLabels", labels.deepCopy());
    body.set("commonAnnotations", annotations.deepCopy());
    body.put("externalURL", links.present() ? links.statusPage() : "");
    ObjectNode alert = body.putArray("alerts").addObject();
    alert.put("status", status);
    alert.set("labels", labels);
    alert.set("annotations", annotations);
    alert.put("startsAt", AlertmanagerAlert.startsAt(event).toString());
    alert.put(
        "endsAt", AlertmanagerAlert.resolved(event) ? event.occurredAt().toString() : ZERO_TIME);
    alert.put("generatorURL", links.present() ? links.service(event.service()) : "");
    alert.put("fingerprint", fingerprint(labels.toString()));
    return Optional.of(ChannelRequest.json(url, body.toString()));
  }

  /** 16 hex digits identifying the label set (Alertmanager's is a 64-bit hash too). */
  private static String fingerprint(String labels) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256").digest(labels.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
