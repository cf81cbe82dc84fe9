package dev.vigil.contract;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.UUID;

/**
 * Reads and writes {@link AlertEvent} as JSON. Instants are ISO-8601 UTC strings and the downtime
 * is an ISO-8601 duration ({@code PT1M30S}). Unknown fields are ignored on read, so additive
 * changes stay compatible; anything else that is not a valid event is an {@link
 * InvalidAlertEventException} naming the field and the reason.
 */
public final class AlertEventJson {
  /** Payloads larger than this are refused before parsing. */
  public static final int MAX_PAYLOAD_BYTES = 64 * 1024;

  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .build();

  private AlertEventJson() {}

  /**
   * The shared, immutable mapper configured for the contract (ISO dates, unknown fields ignored).
   */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * Serializes an event; fields that are null (openedAt, downtime on FAILED, resolution unless an
   * incident was closed for another reason than recovery) are omitted.
   */
  public static String write(AlertEvent event) {
    try {
      JsonNode tree = MAPPER.valueToTree(event);
      ((com.fasterxml.jackson.databind.node.ObjectNode) tree)
          .properties()
          .removeIf(field -> field.getValue().isNull());
      return MAPPER.writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot serialize alert event " + event.eventId(), e);
    }
  }

  /**
   * Parses and validates an event.
   *
   * @throws UnknownAlertKindException if the event is well-formed up to its {@code kind}, which
   *     this code does not know (a kind added later): a consumer should skip it, not park it
   * @throws InvalidAlertEventException if the bytes are oversize, not JSON, or not a valid event of
   *     a known version
   */
  public static AlertEvent read(byte[] json) {
    if (json == null) {
      throw new InvalidAlertEventException("value", "record has no value");
    }
    if (json.length > MAX_PAYLOAD_BYTES) {
      throw new InvalidAlertEventException(
          "value", "payload is " + json.length + " bytes, more than " + MAX_PAYLOAD_BYTES);
    }
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (IOException e) {
      throw new InvalidAlertEventException("value", "not JSON: " + firstLine(e.getMessage()));
    }
    if (root == null || !root.isObject()) {
      throw new InvalidAlertEventException("value", "not a JSON object");
    }
    int version = requiredInt(root, "schemaVersion");
    if (version != AlertEvent.CURRENT_SCHEMA_VERSION) {
      throw new InvalidAlertEventException("schemaVersion", "unknown schema version " + version);
    }
    AlertKind kind = kind(requiredText(root, "kind"));
    try {
      return new AlertEvent(
          version,
          uuid(root, "eventId"),
          uuid(root, "incidentId"),
          requiredText(root, "service"),
          kind,
          instant(root, "occurredAt", true),
          requiredInt(root, "consecutiveFailures"),
          root.hasNonNull("lastError") ? root.get("lastError").asText() : null,
          instant(root, "openedAt", false),
          duration(root, "downtime"),
          root.hasNonNull("resolution") ? requiredText(root, "resolution") : null,
          locations(root),
          impact(root));
    } catch (InvalidAlertEventException e) {
      throw e;
    } catch (NullPointerException | IllegalArgumentException e) {
      throw new InvalidAlertEventException("value", e.getMessage());
    }
  }

  private static java.util.Map<String, String> locations(JsonNode root) {
    JsonNode node = root.get("locations");
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isObject()) {
      throw new InvalidAlertEventException("locations", "must be an object of verdicts");
    }
    java.util.Map<String, String> verdicts = new java.util.TreeMap<>();
    for (var field : node.properties()) {
      if (!field.getValue().isTextual()) {
        throw new InvalidAlertEventException(
            "locations", "verdict of " + field.getKey() + " must be a string");
      }
      verdicts.put(field.getKey(), field.getValue().asText());
    }
    return verdicts;
  }

  private static AlertEvent.Impact impact(JsonNode root) {
    JsonNode node = root.get("impact");
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isObject() || !node.path("children").isInt() || !node.path("names").isArray()) {
      throw new InvalidAlertEventException(
          "impact", "must be an object with children (integer) and names (list)");
    }
    java.util.List<String> names = new java.util.ArrayList<>();
    for (JsonNode name : node.get("names")) {
      if (!name.isTextual()) {
        throw new InvalidAlertEventException("impact", "names must be strings");
      }
      names.add(name.asText());
    }
    return new AlertEvent.Impact(node.get("children").asInt(), names);
  }

  private static AlertKind kind(String text) {
    for (AlertKind known : AlertKind.values()) {
      if (known.name().equals(text)) {
        return known;
      }
    }
    throw new UnknownAlertKindException(text);
  }

  private static String requiredText(JsonNode root, String field) {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      throw new InvalidAlertEventException(field, "is missing");
    }
    if (!node.isTextual()) {
      throw new InvalidAlertEventException(field, "must be a string");
    }
    return node.asText();
  }

  private static int requiredInt(JsonNode root, String field) {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      throw new InvalidAlertEventException(field, "is missing");
    }
    if (!node.canConvertToInt() || !node.isIntegralNumber()) {
      throw new InvalidAlertEventException(field, "must be an integer");
    }
    return node.asInt();
  }

  private static UUID uuid(JsonNode root, String field) {
    String text = requiredText(root, field);
    try {
      return UUID.fromString(text);
    } catch (IllegalArgumentException e) {
      throw new InvalidAlertEventException(field, "is not a UUID: " + text);
    }
  }

  private static Instant instant(JsonNode root, String field, boolean required) {
    if (!required && !root.hasNonNull(field)) {
      return null;
    }
    String text = requiredText(root, field);
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new InvalidAlertEventException(field, "is not an ISO-8601 instant: " + text);
    }
  }

  private static Duration duration(JsonNode root, String field) {
    if (!root.hasNonNull(field)) {
      return null;
    }
    String text = requiredText(root, field);
    try {
      return Duration.parse(text);
    } catch (DateTimeParseException e) {
      throw new InvalidAlertEventException(field, "is not an ISO-8601 duration: " + text);
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
