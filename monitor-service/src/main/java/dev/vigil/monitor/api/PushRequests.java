package dev.vigil.monitor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.alert.ProbeStatus;
import dev.vigil.monitor.alert.ResultSource;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Set;

/**
 * Parses a pushed result: {@code {"status": "UP"|"DOWN", "error": "...", "startedAt":
 * "2026-01-01T00:00:00Z", "latencyMs": 12, "httpStatus": 200, "location": "eu-west"}}; only {@code
 * status} is required ({@code location} only, and always, for a target that lists locations).
 * Without {@code startedAt} the result is placed by its arrival and stamped with the database's
 * time when recorded; with it, it must be later than the checker's previous {@code startedAt}.
 * Every problem names the field; text with control characters (other than tab and line breaks) or
 * unpaired surrogates is refused, since it cannot be stored or shown safely.
 */
final class PushRequests {
  private static final Set<String> FIELDS =
      Set.of("status", "error", "startedAt", "latencyMs", "httpStatus", "location");

  private PushRequests() {}

  static ProbeResult parse(String service, JsonNode body, Instant receivedAt) {
    if (body == null || !body.isObject()) {
      throw ApiException.badRequest("body", "must be a JSON object");
    }
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String field = names.next();
      if (!FIELDS.contains(field)) {
        throw ApiException.badRequest(field, "unknown field (known: " + FIELDS + ")");
      }
    }
    JsonNode status = body.get("status");
    if (status == null || status.isNull()) {
      throw ApiException.badRequest("status", "is required (UP or DOWN)");
    }
    ProbeStatus verdict;
    if ("UP".equals(status.asText()) && status.isTextual()) {
      verdict = ProbeStatus.UP;
    } else if ("DOWN".equals(status.asText()) && status.isTextual()) {
      verdict = ProbeStatus.DOWN;
    } else {
      throw ApiException.badRequest("status", "must be UP or DOWN");
    }
    String error = null;
    JsonNode errorNode = body.get("error");
    if (errorNode != null && !errorNode.isNull()) {
      if (!errorNode.isTextual()) {
        throw ApiException.badRequest("error", "must be a string");
      }
      error = AlertEvent.boundedError(checkedText("error", errorNode.asText()));
    }
    if (verdict == ProbeStatus.DOWN && error == null) {
      error = "reported DOWN by external checker";
    }
    Instant startedAt = null;
    JsonNode started = body.get("startedAt");
    if (started != null && !started.isNull()) {
      if (!started.isTextual()) {
        throw ApiException.badRequest("startedAt", "must be an ISO-8601 instant string");
      }
      try {
        startedAt = Instant.parse(started.asText());
      } catch (DateTimeParseException e) {
        throw ApiException.badRequest("startedAt", "must be an ISO-8601 instant");
      }
      if (startedAt.isAfter(receivedAt.plusSeconds(60))) {
        throw ApiException.badRequest("startedAt", "is in the future");
      }
    }
    Long latency = number(body, "latencyMs", 0, Integer.MAX_VALUE);
    Long httpStatus = number(body, "httpStatus", 100, 599);
    String location = location(body);
    return new ProbeResult(
        service,
        verdict,
        startedAt,
        latency,
        httpStatus == null ? null : httpStatus.intValue(),
        verdict == ProbeStatus.UP ? null : error,
        ResultSource.PUSH,
        null,
        location);
  }

  /** The location a remote checker names (a target probed from several locations), or null. */
  private static String location(JsonNode body) {
    JsonNode node = body.get("location");
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isTextual()) {
      throw ApiException.badRequest("location", "must be a string");
    }
    String location = checkedText("location", node.asText());
    if (!AlertEvent.LOCATION_NAME.matcher(location).matches()) {
      throw ApiException.badRequest(
          "location",
          "must be 1-32 characters of a-z, 0-9 and '-', starting with a letter or digit");
    }
    return location;
  }

  /** {@code text} unchanged, or a 400 naming {@code field} if it holds what cannot be stored. */
  static String checkedText(String field, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isISOControl(c) && c != '\t' && c != '\n' && c != '\r') {
        throw ApiException.badRequest(
            field,
            String.format(
                "contains the control character U+%04X at position %d; NUL and other control"
                    + " characters are not accepted",
                (int) c, i));
      }
      if (Character.isSurrogate(c)) {
        boolean paired =
            Character.isHighSurrogate(c)
                && i + 1 < text.length()
                && Character.isLowSurrogate(text.charAt(i + 1));
        if (!paired) {
          throw ApiException.badRequest(
              field, "contains an unpaired surrogate at position " + i + "; it is not valid text");
        }
        i++;
      }
    }
    return text;
  }

  private static Long number(JsonNode body, String field, long min, long max) {
    JsonNode node = body.get(field);
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isIntegralNumber() || node.asLong() < min || node.asLong() > max) {
      throw ApiException.badRequest(field, "must be a whole number between " + min + " and " + max);
    }
    return node.asLong();
  }
}
