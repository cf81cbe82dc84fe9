package dev.vigil.notifier.channel;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertKind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * PagerDuty Events API v2 ({@code POST /v2/enqueue}): {@code trigger} on FAILED, {@code resolve} on
 * RECOVERED, {@code dedup_key} = incident id, so PagerDuty ties both to one incident. REMINDER
 * sends nothing (skipped by the channel): PagerDuty escalates and re-notifies an open incident by
 * its own escalation policy, and a second trigger with the same dedup key would only add a log
 * entry. PagerDuty answers 202 when it accepted the event, 400 for an invalid one (dead, the
 * answer's {@code errors} kept in the delivery's error), 429 and 5xx to retry.
 */
public final class PagerDutyChannel implements GroupChannel {
  public static final URI DEFAULT_URL = URI.create("https://events.pagerduty.com/v2/enqueue");
  static final Set<String> SEVERITIES = Set.of("critical", "error", "warning", "info");

  /** PagerDuty truncates longer summaries; we cut them ourselves so the end is visible. */
  static final int MAX_SUMMARY = 1024;

  private static final ObjectMapper JSON = AlertEventJson.mapper();

  private final String name;
  private final URI url;
  private final String routingKey;
  private final String severity;
  private final PublicLinks links;

  /**
   * @param routingKey the integration's routing key (a secret: never logged, never in toString)
   */
  public PagerDutyChannel(
      String name, URI url, String routingKey, String severity, PublicLinks links) {
    this.name = Objects.requireNonNull(name);
    this.url = Objects.requireNonNull(url);
    if (routingKey == null || routingKey.isBlank()) {
      throw new IllegalArgumentException("routingKey is missing");
    }
    if (!SEVERITIES.contains(severity)) {
      throw new IllegalArgumentException("severity must be one of " + SEVERITIES);
    }
    this.routingKey = routingKey.strip();
    this.severity = severity;
    this.links = links;
  }

  @Override
  public String endpoint() {
    return routingKey;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Optional<ChannelRequest> request(AlertEvent event, String payload) {
    if (event.kind() == AlertKind.REMINDER) {
      return Optional.empty();
    }
    ObjectNode body = JSON.createObjectNode();
    body.put("routing_key", routingKey);
    body.put("dedup_key", event.incidentId().toString());
    if (event.kind() == AlertKind.RECOVERED) {
      body.put("event_action", "resolve");
    } else {
      body.put("event_action", "trigger");
      ObjectNode details = body.putObject("payload");
      String summary = AlertText.summary(event);
      details.put(
          "summary",
          summary.length() <= MAX_SUMMARY ? summary : summary.substring(0, MAX_SUMMARY - 1) + "…");
      details.put("source", event.service());
      details.put("severity", severity);
      // A deferred FAILED happened when its incident opened, not when the quiet period ended.
      details.put(
          "timestamp",
          (event.openedAt() != null ? event.openedAt() : event.occurredAt()).toString());
      details.put("component", event.service());
      details.put("class", "service down");
      try {
        details.set("custom_details", JSON.readTree(payload));
      } catch (IOException e) {
        throw new UncheckedIOException("event " + event.eventId() + " payload is not JSON", e);
      }
      if (links.present()) {
        ObjectNode link = body.putArray("links").addObject();
        link.put("href", links.service(event.service()));
        link.put("text", "Vigil: " + event.service());
        body.put("client", "Vigil");
        body.put("client_url", links.statusPage());
      }
    }
    return Optional.of(ChannelRequest.json(url, body.toString()));
  }

  /**
   * A group is one PagerDuty incident ({@code dedup_key} = group id): each message that changes it
   * triggers again with the current summary and {@code custom_details} (services down, recovered,
   * still down, at most {@code max} named), and the message after which nobody is down resolves it.
   * A message of reminders only sends nothing (PagerDuty re-notifies by its own policy).
   */
  @Override
  public Optional<ChannelRequest> request(GroupMessage m) {
    if (!m.changed() || (m.first() && m.allRecovered())) {
      return Optional.empty();
    }
    ObjectNode body = JSON.createObjectNode();
    body.put("routing_key", routingKey);
    body.put("dedup_key", m.groupId().toString());
    if (m.allRecovered()) {
      body.put("event_action", "resolve");
      return Optional.of(ChannelRequest.json(url, body.toString()));
    }
    body.put("event_action", "trigger");
    ObjectNode payload = body.putObject("payload");
    String summary = GroupText.headline(m);
    payload.put(
        "summary",
        summary.length() <= MAX_SUMMARY ? summary : summary.substring(0, MAX_SUMMARY - 1) + "…");
    payload.put("source", "vigil");
    payload.put("severity", severity);
    payload.put("component", m.stillDown().size() + " services");
    payload.put("class", "services down");
    ObjectNode details = payload.putObject("custom_details");
    details.put("group_id", m.groupId().toString());
    details.put("message", m.seq());
    int room = GroupText.named(m);
    var down = details.putArray("down");
    for (GroupMessage.Down d : m.down()) {
      if (room-- <= 0) {
        break;
      }
      ObjectNode node = down.addObject();
      node.put("service", d.service());
      node.put("incident_id", d.incidentId().toString());
      node.put("since", d.since().toString());
      node.put("last_error", GroupText.error(d.lastError()));
      if (links.present()) {
        node.put("link", links.service(d.service()));
      }
    }
    var recovered = details.putArray("recovered");
    for (GroupMessage.Recovered r : m.recovered()) {
      if (room-- <= 0) {
        break;
      }
      ObjectNode node = recovered.addObject();
      node.put("service", r.service());
      node.put("incident_id", r.incidentId().toString());
      node.put("downtime", AlertText.human(r.downtime()));
    }
    // every service the message carries, by name (the delivery side keeps them within the budget)
    var downNames = details.putArray("down_services");
    m.down().forEach(d -> downNames.add(d.service()));
    var recoveredNames = details.putArray("recovered_services");
    m.recovered().forEach(r -> recoveredNames.add(r.service()));
    details.put("not_named", m.down().size() + m.recovered().size() - GroupText.named(m));
    details.put("still_down_count", m.stillDown().size());
    var still = details.putArray("still_down");
    m.stillDown().stream().limit(m.max()).forEach(d -> still.add(d.service()));
    if (links.present()) {
      ObjectNode link = body.putArray("links").addObject();
      link.put("href", links.statusPage());
      link.put("text", "Vigil status page");
      body.put("client", "Vigil");
      body.put("client_url", links.statusPage());
    }
    return Optional.of(ChannelRequest.json(url, body.toString()));
  }

  /**
   * Characters of names a grouped trigger lists in {@code custom_details} (see {@link
   * GroupChannel#nameBudget}): well within the 512 KB PagerDuty accepts for an event.
   */
  static final int NAME_BUDGET = 200_000;

  @Override
  public int nameBudget() {
    return NAME_BUDGET;
  }

  @Override
  public String toString() {
    return "PagerDutyChannel[name=" + name + ", severity=" + severity + ", routingKey=<redacted>]";
  }
}
