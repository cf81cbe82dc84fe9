package dev.vigil.monitor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.monitor.alert.Acknowledger;
import dev.vigil.monitor.quiet.InvalidQuietException;
import dev.vigil.monitor.quiet.PrefixWindows;
import dev.vigil.monitor.quiet.Silence;
import dev.vigil.monitor.quiet.Silences;
import dev.vigil.monitor.quiet.Window;
import dev.vigil.monitor.quiet.WindowForm;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Quiet periods and acknowledgement: ad-hoc silences (add, list, delete), maintenance windows for a
 * name prefix (add, list, delete) and acknowledging an open incident. Every field is validated
 * before anything is written; a refusal is 400 naming the field.
 */
final class QuietRoutes {
  private static final Logger LOG = LoggerFactory.getLogger(QuietRoutes.class);
  private static final Set<String> SILENCE_FIELDS =
      Set.of("service", "prefix", "who", "why", "until");
  private static final int MAX_WHO = 100;
  private static final int MAX_WHY = 500;

  private final Silences silences;
  private final PrefixWindows windows;
  private final Acknowledger acknowledger;

  private final Predicate<Context> details;

  /**
   * @param details whether a request sees a silence's reason and author
   */
  QuietRoutes(
      Silences silences,
      PrefixWindows windows,
      Acknowledger acknowledger,
      Predicate<Context> details) {
    this.silences = silences;
    this.windows = windows;
    this.acknowledger = acknowledger;
    this.details = details;
  }

  void register(RoutesConfig routes) {
    routes.get(
        "/api/silences",
        ctx -> {
          boolean detailed = details.test(ctx);
          Http.json(
              ctx,
              200,
              Map.of(
                  "silences",
                  silences.active().stream()
                      .map(QuietRoutes::describe)
                      .peek(
                          silence -> {
                            if (!detailed) {
                              silence.remove("who");
                              silence.remove("why");
                            }
                          })
                      .toList()));
        });
    routes.post("/api/silences", this::addSilence);
    routes.delete("/api/silences/{id}", ctx -> delete(ctx, silences.delete(id(ctx)), "silence"));
    routes.get(
        "/api/maintenance-windows",
        ctx ->
            Http.json(
                ctx,
                200,
                Map.of("windows", windows.list().stream().map(QuietRoutes::describe).toList())));
    routes.post("/api/maintenance-windows", this::addWindow);
    routes.delete(
        "/api/maintenance-windows/{id}",
        ctx -> delete(ctx, windows.delete(id(ctx)), "maintenance window added through the API"));
    routes.post("/api/incidents/{id}/acknowledge", this::acknowledge);
  }

  private void addSilence(Context ctx) {
    JsonNode body = Http.object(Http.body(ctx), SILENCE_FIELDS);
    String[] scope = scope(body);
    String who = text(body, "who", MAX_WHO);
    String why = text(body, "why", MAX_WHY);
    Instant until = instant(body.get("until"));
    Silence silence = quiet(() -> silences.add(scope[0], scope[1], who, why, until));
    LOG.info(
        "silence added id={} service={} prefix={} who={} until={}",
        silence.id(),
        silence.service(),
        silence.prefix(),
        WindowForm.printable(who),
        until);
    Http.json(ctx, 201, describe(silence));
  }

  private void addWindow(Context ctx) {
    JsonNode body = Http.body(ctx);
    Window window = quiet(() -> WindowForm.read(body, "", Set.of("prefix")));
    String prefix = name(body.get("prefix"), "prefix");
    PrefixWindows.Entry entry = windows.add(prefix, window);
    LOG.info("maintenance window added id={} prefix={}", entry.id(), prefix);
    Http.json(ctx, 201, describe(entry));
  }

  private void acknowledge(Context ctx) {
    UUID incident = id(ctx);
    JsonNode body = Http.object(Http.body(ctx), Set.of("who"));
    String who = text(body, "who", MAX_WHO);
    Acknowledger.Acknowledgement ack;
    try {
      ack =
          acknowledger
              .acknowledge(incident, who)
              .orElseThrow(
                  () -> new ApiException(404, "id", "no incident " + incident + " is known"));
    } catch (Acknowledger.ClosedIncidentException e) {
      throw new ApiException(409, "id", e.getMessage());
    }
    LOG.info(
        "incident acknowledged service={} incident_id={} by={}",
        ack.service(),
        incident,
        WindowForm.printable(ack.by()));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("incidentId", ack.incidentId());
    out.put("service", ack.service());
    out.put("acknowledgedBy", ack.by());
    out.put("acknowledgedAt", ack.at());
    Http.json(ctx, 200, out);
  }

  private static void delete(Context ctx, boolean deleted, String what) {
    if (!deleted) {
      throw new ApiException(404, "id", "no " + what + " with id " + ctx.pathParam("id"));
    }
    Http.json(ctx, 200, Map.of("deleted", ctx.pathParam("id")));
  }

  /** {service, null} or {null, prefix}: exactly one of the two. */
  private static String[] scope(JsonNode body) {
    boolean service = body.hasNonNull("service");
    boolean prefix = body.hasNonNull("prefix");
    if (service == prefix) {
      throw ApiException.badRequest("service", "give either service or prefix (exactly one)");
    }
    return service
        ? new String[] {name(body.get("service"), "service"), null}
        : new String[] {null, name(body.get("prefix"), "prefix")};
  }

  private static String name(JsonNode value, String field) {
    if (value == null || !value.isTextual()) {
      throw ApiException.badRequest(field, "is required and must be a string");
    }
    return Http.normalize(value.asText(), field);
  }

  private static String text(JsonNode body, String field, int max) {
    JsonNode value = body.get(field);
    if (value == null || !value.isTextual() || value.asText().isBlank()) {
      throw ApiException.badRequest(field, "is required and must be a non-empty string");
    }
    String text = value.asText().strip();
    if (text.length() > max) {
      throw ApiException.badRequest(field, "is longer than " + max + " characters");
    }
    if (text.chars().anyMatch(Character::isISOControl)) {
      throw ApiException.badRequest(field, "contains control characters (NUL, CR, LF, ...)");
    }
    return text;
  }

  private static Instant instant(JsonNode value) {
    if (value == null || !value.isTextual()) {
      throw ApiException.badRequest(
          "until", "is required: an ISO-8601 instant such as 2026-12-01T06:00:00Z");
    }
    try {
      return Instant.parse(value.asText());
    } catch (DateTimeParseException e) {
      throw ApiException.badRequest(
          "until",
          "must be an ISO-8601 instant such as 2026-12-01T06:00:00Z, was '"
              + WindowForm.printable(value.asText())
              + "'");
    }
  }

  private static UUID id(Context ctx) {
    try {
      return UUID.fromString(ctx.pathParam("id"));
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("id", "must be a UUID");
    }
  }

  private interface QuietWork<T> {
    T run();
  }

  private static <T> T quiet(QuietWork<T> work) {
    try {
      return work.run();
    } catch (InvalidQuietException e) {
      throw ApiException.badRequest(e.field(), e.reason());
    }
  }

  static Map<String, Object> describe(Silence silence) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", silence.id());
    if (silence.service() != null) {
      out.put("service", silence.service());
    } else {
      out.put("prefix", silence.prefix());
    }
    out.put("who", silence.createdBy());
    out.put("why", silence.reason());
    out.put("createdAt", silence.createdAt());
    out.put("until", silence.endsAt());
    return out;
  }

  static Map<String, Object> describe(PrefixWindows.Entry entry) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", entry.id());
    out.put("prefix", entry.prefix());
    WindowForm.write(entry.window())
        .fields()
        .forEachRemaining(f -> out.put(f.getKey(), f.getValue()));
    out.put("source", entry.source());
    return out;
  }
}
