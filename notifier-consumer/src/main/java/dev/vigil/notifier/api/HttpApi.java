package dev.vigil.notifier.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.kit.DatabaseReadiness;
import dev.vigil.kit.db.Database;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * /health, /metrics and the operator API:
 *
 * <ul>
 *   <li>{@code GET /admin/services} — pending and dead counts per service
 *   <li>{@code GET /admin/receipts?status=DEAD|PENDING|DELIVERED|SKIPPED[&service=]}
 *   <li>{@code POST /admin/receipts/{eventId}/replay} — dead → pending, attempts reset, same id
 *   <li>{@code POST /admin/receipts/{eventId}/skip} — give up on it, release the service
 * </ul>
 *
 * Admin calls need {@code Authorization: Bearer <VIGIL_NOTIFIER_ADMIN_TOKEN>} and name the operator
 * in {@code X-Vigil-Operator}; who and when are stored with the receipt and in the action log.
 */
public final class HttpApi implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HttpApi.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Javalin app;

  public HttpApi(
      int port,
      Database database,
      PrometheusMeterRegistry registry,
      String adminToken,
      Supplier<String> intakeProblem,
      Runnable afterReplay) {
    OperatorStore operators = new OperatorStore(database);
    DatabaseReadiness readiness =
        new DatabaseReadiness(database.dataSource(), DatabaseReadiness.DEFAULT_TIMEOUT);
    byte[] token = adminToken == null ? null : adminToken.getBytes(StandardCharsets.UTF_8);
    this.app =
        Javalin.create(
            config -> {
              config.startup.showJavalinBanner = false;
              config.jetty.port = port;
              config.routes.get("/health", ctx -> health(ctx, readiness, intakeProblem));
              config.routes.get(
                  "/metrics",
                  ctx -> ctx.contentType("text/plain; version=0.0.4").result(registry.scrape()));
              config.routes.before("/admin/*", ctx -> authorize(ctx, token));
              config.routes.get("/admin/services", ctx -> json(ctx, 200, operators.services()));
              config.routes.get(
                  "/admin/receipts",
                  ctx -> {
                    String status =
                        ctx.queryParamAsClass("status", String.class).getOrDefault("DEAD");
                    if (!List.of("PENDING", "DEAD", "DELIVERED", "SKIPPED").contains(status)) {
                      json(
                          ctx,
                          400,
                          Map.of("error", "status must be PENDING, DEAD, DELIVERED or SKIPPED"));
                      return;
                    }
                    json(ctx, 200, operators.receipts(status, ctx.queryParam("service")));
                  });
              config.routes.post(
                  "/admin/receipts/{eventId}/replay",
                  ctx -> {
                    if (act(ctx, "replay", (id, who) -> operators.replay(id, who))) {
                      afterReplay.run();
                    }
                  });
              config.routes.post(
                  "/admin/receipts/{eventId}/skip",
                  ctx -> {
                    if (act(ctx, "skip", (id, who) -> operators.skip(id, who))) {
                      afterReplay.run();
                    }
                  });
            });
    app.start();
  }

  public int port() {
    return app.port();
  }

  private interface Action {
    boolean apply(UUID eventId, String operator);
  }

  private static boolean act(Context ctx, String action, Action operation) {
    String operator = ctx.header("X-Vigil-Operator");
    if (operator == null || operator.isBlank() || operator.length() > 100) {
      json(ctx, 400, Map.of("error", "name the operator in the X-Vigil-Operator header"));
      return false;
    }
    UUID eventId;
    try {
      eventId = UUID.fromString(ctx.pathParam("eventId"));
    } catch (IllegalArgumentException e) {
      json(ctx, 400, Map.of("error", "eventId must be a UUID"));
      return false;
    }
    boolean done = operation.apply(eventId, operator.strip());
    log.info(
        "event=operator_{} event_id={} operator=\"{}\" applied={}",
        action,
        eventId,
        operator.strip(),
        done);
    if (done) {
      json(ctx, 200, Map.of("eventId", eventId.toString(), "action", action, "operator", operator));
    } else {
      json(ctx, 409, Map.of("error", action + " not possible in the receipt's current state"));
    }
    return done;
  }

  private static void authorize(Context ctx, byte[] token) {
    if (token == null) {
      json(ctx, 403, Map.of("error", "admin API disabled (VIGIL_NOTIFIER_ADMIN_TOKEN not set)"));
      ctx.skipRemainingHandlers();
      return;
    }
    String header = ctx.header("Authorization");
    byte[] given =
        header != null && header.startsWith("Bearer ")
            ? header.substring(7).getBytes(StandardCharsets.UTF_8)
            : new byte[0];
    if (!MessageDigest.isEqual(token, given)) {
      json(ctx, 401, Map.of("error", "missing or wrong bearer token"));
      ctx.skipRemainingHandlers();
    }
  }

  /**
   * @param intakeProblem why intake is down, or null while it works
   */
  private static void health(
      Context ctx, DatabaseReadiness readiness, Supplier<String> intakeProblem) {
    boolean dbUp = readiness.answers();
    String problem = intakeProblem.get();
    boolean intakeUp = problem == null;
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", dbUp && intakeUp ? "UP" : "DOWN");
    body.put("database", dbUp ? "UP" : "DOWN");
    body.put("intake", intakeUp ? "UP" : "DOWN");
    if (!intakeUp) {
      body.put("intakeReason", problem);
    }
    json(ctx, dbUp && intakeUp ? 200 : 503, body);
  }

  private static void json(Context ctx, int status, Object body) {
    try {
      ctx.status(status).contentType("application/json").result(JSON.writeValueAsString(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }

  @Override
  public void close() {
    app.stop();
  }
}
