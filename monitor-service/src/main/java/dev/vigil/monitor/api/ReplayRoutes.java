package dev.vigil.monitor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.monitor.quiet.WindowForm;
import dev.vigil.monitor.replay.InvalidReplayException;
import dev.vigil.monitor.replay.OutboxReplay;
import dev.vigil.monitor.replay.ReplayBusyException;
import dev.vigil.monitor.replay.ReplayResult;
import dev.vigil.monitor.replay.ReplaySelection;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code POST /api/outbox/replay} (token required): publishes a range of outbox rows again, or with
 * {@code dryRun} counts them. Answers when the replay is done; 400 names the field at fault, 422
 * refuses a valid selection (nothing matches, over the limit), 409 while another replay runs.
 */
final class ReplayRoutes {
  private static final Set<String> FIELDS =
      Set.of("service", "fromSeq", "toSeq", "from", "to", "dryRun");

  private final OutboxReplay replay;

  ReplayRoutes(OutboxReplay replay) {
    this.replay = replay;
  }

  void register(RoutesConfig routes) {
    routes.post("/api/outbox/replay", this::replay);
  }

  private void replay(Context ctx) {
    JsonNode body = Http.object(Http.body(ctx), FIELDS);
    ReplayResult result;
    try {
      ReplaySelection selection =
          new ReplaySelection(
              text(body, "service"),
              seq(body, "fromSeq"),
              seq(body, "toSeq"),
              instant(body, "from"),
              instant(body, "to"));
      result = replay.replay(selection, dryRun(body));
    } catch (InvalidReplayException e) {
      throw new ApiException(e.invalidRequest() ? 400 : 422, e.field(), e.getMessage());
    } catch (ReplayBusyException e) {
      throw new ApiException(409, null, e.getMessage());
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("selected", result.selected());
    out.put("replayed", result.replayed());
    out.put("chunks", result.chunks());
    out.put("firstSeq", result.firstSeq());
    out.put("lastSeq", result.lastSeq());
    out.put("dryRun", result.dryRun());
    Http.json(ctx, 200, out);
  }

  private static String text(JsonNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isTextual()) {
      throw ApiException.badRequest(field, "must be a string");
    }
    return value.asText();
  }

  private static Long seq(JsonNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      throw ApiException.badRequest(field, "must be a whole number (an outbox seq)");
    }
    return value.longValue();
  }

  private static Instant instant(JsonNode body, String field) {
    String text = text(body, field);
    if (text == null) {
      return null;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw ApiException.badRequest(
          field,
          "must be an ISO-8601 instant such as 2026-12-01T06:00:00Z, was '"
              + WindowForm.printable(text)
              + "'");
    }
  }

  private static boolean dryRun(JsonNode body) {
    JsonNode value = body.get("dryRun");
    if (value == null || value.isNull()) {
      return false;
    }
    if (!value.isBoolean()) {
      throw ApiException.badRequest("dryRun", "must be true or false");
    }
    return value.booleanValue();
  }
}
