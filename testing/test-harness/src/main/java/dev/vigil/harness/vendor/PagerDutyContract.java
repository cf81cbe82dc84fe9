package dev.vigil.harness.vendor;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The request body PagerDuty's Events API v2 documents for {@code POST /v2/enqueue}: "Send an Alert
 * Event" and the Events API v2 reference, https://developer.pagerduty.com/docs/send-alert-event and
 * https://developer.pagerduty.com/api-reference/368ae3d938c9e-send-an-event-to-pager-duty (also
 * summarised at https://docs.influxdata.com/flux/v0/stdlib/pagerduty/sendevent/). Required: {@code
 * routing_key} (string), {@code event_action} (trigger|acknowledge|resolve), {@code dedup_key}
 * (string, at most 255 characters; required for acknowledge and resolve); for trigger a {@code
 * payload} with {@code summary} (string, 1-1024 characters), {@code source} (string) and {@code
 * severity} (critical|error|warning|info); optional {@code timestamp} (ISO 8601), {@code
 * component}, {@code group}, {@code class} (strings), {@code custom_details} (object); optional
 * top-level {@code links} ({@code href}, {@code text}), {@code images}, {@code client}, {@code
 * client_url}.
 */
public final class PagerDutyContract {
  private static final Set<String> TOP =
      Set.of(
          "routing_key",
          "event_action",
          "dedup_key",
          "payload",
          "links",
          "images",
          "client",
          "client_url");
  private static final Set<String> PAYLOAD =
      Set.of(
          "summary",
          "source",
          "severity",
          "timestamp",
          "component",
          "group",
          "class",
          "custom_details");

  private PagerDutyContract() {}

  /** Every way {@code body} breaks the documented contract; empty when it keeps it. */
  public static List<String> violations(JsonNode body) {
    List<String> problems = new ArrayList<>();
    if (body == null || !body.isObject()) {
      return List.of("body is not a JSON object");
    }
    unknown(body, TOP, "", problems);
    text(body, "routing_key", true, 1, 1000, problems);
    String action = body.path("event_action").asText(null);
    if (!Set.of("trigger", "acknowledge", "resolve").contains(action)) {
      problems.add("event_action must be trigger, acknowledge or resolve, was " + action);
    }
    text(body, "dedup_key", !"trigger".equals(action), 1, 255, problems);
    if ("trigger".equals(action)) {
      JsonNode payload = body.get("payload");
      if (payload == null || !payload.isObject()) {
        problems.add("payload is required for trigger");
      } else {
        unknown(payload, PAYLOAD, "payload.", problems);
        text(payload, "summary", true, 1, 1024, problems);
        text(payload, "source", true, 1, 1000, problems);
        String severity = payload.path("severity").asText(null);
        if (!Set.of("critical", "error", "warning", "info").contains(severity)) {
          problems.add("payload.severity must be critical, error, warning or info");
        }
        for (String field : List.of("component", "group", "class")) {
          text(payload, field, false, 1, 1000, problems);
        }
        if (payload.has("timestamp")) {
          try {
            OffsetDateTime.parse(payload.get("timestamp").asText());
          } catch (RuntimeException e) {
            problems.add("payload.timestamp must be ISO 8601");
          }
        }
        if (payload.has("custom_details") && !payload.get("custom_details").isObject()) {
          problems.add("payload.custom_details must be an object");
        }
      }
    }
    if (body.has("links")) {
      if (!body.get("links").isArray()) {
        problems.add("links must be an array");
      } else {
        for (JsonNode link : body.get("links")) {
          text(link, "href", true, 1, 2000, problems);
        }
      }
    }
    return problems;
  }

  private static void text(
      JsonNode node, String field, boolean required, int min, int max, List<String> problems) {
    JsonNode value = node.get(field);
    if (value == null) {
      if (required) {
        problems.add(field + " is required");
      }
      return;
    }
    if (!value.isTextual()) {
      problems.add(field + " must be a string");
    } else if (value.asText().length() < min || value.asText().length() > max) {
      problems.add(field + " must be " + min + "-" + max + " characters");
    }
  }

  private static void unknown(JsonNode node, Set<String> known, String at, List<String> problems) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (!known.contains(name)) {
        problems.add(at + name + " is not a documented field");
      }
    }
  }
}
