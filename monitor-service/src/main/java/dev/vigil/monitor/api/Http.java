package dev.vigil.monitor.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.vigil.contract.ServiceNames;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;

/** Request parsing and JSON responses shared by the routes; every refusal names the field. */
final class Http {
  static final ObjectMapper JSON =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
          .build();

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
      JsonNode node = JSON.readTree(ctx.body());
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

  static void json(Context ctx, int status, Object body) {
    try {
      ctx.status(status).contentType("application/json").result(JSON.writeValueAsString(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("response not serializable", e);
    }
  }
}
