package dev.vigil.monitor.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.contract.ServiceNames;
import dev.vigil.kit.http.HttpJson;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;

/** Request parsing and JSON responses shared by the routes; every refusal names the field. */
final class Http {
  private Http() {}

  static String name(Context ctx) {
    return normalize(ctx.pathParam("name"), "name");
  }

  static String normalize(String raw, String field) {
    try {
      return ServiceNames.normalize(raw);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest(field, e.getMessage());
    }
  }

  static int intParam(Context ctx, String name, int fallback, int min, int max) {
    String raw = ctx.queryParam(name);
    if (raw == null) {
      return fallback;
    }
    try {
      int value = Integer.parseInt(raw);
      if (value >= min && value <= max) {
        return value;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw ApiException.badRequest(name, "must be a whole number between " + min + " and " + max);
  }

  static JsonNode body(Context ctx) {
    try {
      JsonNode node = HttpJson.mapper().readTree(ctx.body());
      if (node == null || node.isMissingNode()) {
        throw ApiException.badRequest("body", "is empty; a JSON object is required");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest("body", "is not valid JSON: " + e.getOriginalMessage());
    }
  }

  static void error(Context ctx, int status, String field, String reason) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", reason);
    if (field != null) {
      body.put("field", field);
    }
    json(ctx, status, body);
  }

  /** Answers with {@code body} as JSON through Javalin's mapper (the kit's {@link HttpJson}). */
  static void json(Context ctx, int status, Object body) {
    ctx.status(status).json(body);
  }
}
