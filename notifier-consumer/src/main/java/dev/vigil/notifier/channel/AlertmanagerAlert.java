package dev.vigil.notifier.channel;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertKind;
import dev.vigil.kit.tracing.TraceParent;
import java.time.Duration;
import java.time.Instant;

/**
 * One event as an Alertmanager alert: labels {@code alertname}, {@code service}, {@code
 * incident_id}, {@code severity}; annotations {@code summary}, {@code last_error} and {@code
 * traceparent} (the delivery span's, when traced); {@code startsAt} = when the incident opened.
 * RECOVERED ends it ({@code endsAt} = its occurredAt); FAILED and REMINDER keep it firing until
 * occurredAt + {@code firingFor} (Alertmanager resolves an alert whose endsAt passed; each REMINDER
 * pushes it further out).
 */
final class AlertmanagerAlert {
  static final String ALERT_NAME = "VigilServiceDown";

  private AlertmanagerAlert() {}

  static boolean resolved(AlertEvent event) {
    return event.kind() == AlertKind.RECOVERED;
  }

  static Instant startsAt(AlertEvent event) {
    // A deferred FAILED carries when its incident opened; an ordinary one opened at occurredAt.
    return event.openedAt() != null ? event.openedAt() : event.occurredAt();
  }

  static ObjectNode labels(AlertEvent event, String severity) {
    ObjectNode labels = AlertEventJson.mapper().createObjectNode();
    labels.put("alertname", ALERT_NAME);
    labels.put("service", event.service());
    labels.put("incident_id", event.incidentId().toString());
    labels.put("severity", severity);
    return labels;
  }

  static ObjectNode annotations(AlertEvent event, TraceParent trace) {
    ObjectNode annotations = AlertEventJson.mapper().createObjectNode();
    if (trace != null) {
      // The delivery span's W3C traceparent: from the alert in Alertmanager back to the probe.
      annotations.put("traceparent", trace.toString());
    }
    annotations.put("summary", AlertText.summary(event));
    if (event.lastError() != null) {
      annotations.put("last_error", event.lastError());
    }
    if (event.downtime() != null) {
      annotations.put("downtime", AlertText.human(event.downtime()));
    }
    return annotations;
  }

  /** The alert as posted to {@code /api/v2/alerts}. */
  static ObjectNode posted(
      AlertEvent event, String severity, Duration firingFor, PublicLinks links, TraceParent trace) {
    ObjectNode alert = AlertEventJson.mapper().createObjectNode();
    alert.set("labels", labels(event, severity));
    alert.set("annotations", annotations(event, trace));
    alert.put("startsAt", startsAt(event).toString());
    alert.put(
        "endsAt",
        (resolved(event) ? event.occurredAt() : event.occurredAt().plus(firingFor)).toString());
    if (links.present()) {
      alert.put("generatorURL", links.service(event.service()));
    }
    return alert;
  }
}
