package dev.vigil.monitor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.contract.ServiceNames;
import dev.vigil.kit.http.HttpJson;
import dev.vigil.kit.json.InvalidJsonException;
import dev.vigil.kit.json.StrictJson;
import dev.vigil.monitor.quiet.WindowForm;
import io.javalin.http.Context;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

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

  /**
   * The request body read by the services' one strict JSON reading ({@link StrictJson}): the raw
   * bytes, so bytes that are not UTF-8 are refused rather than stored as U+FFFD; trailing text,
   * duplicate keys and lone surrogates are refused naming the field.
   */
  static JsonNode body(Context ctx) {
    try {
      return StrictJson.read(ctx.bodyAsBytes(), HttpJson.mapper(), "body");
    } catch (InvalidJsonException e) {
      throw ApiException.badRequest(e.field(), e.reason());
    }
  }

  /** {@code body} when it is a JSON object with no field outside {@code fields}; else a 400. */
  static JsonNode object(JsonNode body, Set<String> fields) {
    if (!body.isObject()) {
      throw ApiException.badRequest("body", "must be a JSON object");
    }
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!fields.contains(name)) {
        throw ApiException.badRequest(
            WindowForm.printable(name),
            "unknown field (known: " + String.join(", ", fields.stream().sorted().toList()) + ")");
      }
    }
    return body;
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
