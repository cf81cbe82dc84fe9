package dev.vigil.notifier.api;

import dev.vigil.contract.ServiceNames;
import dev.vigil.kit.DatabaseReadiness;
import dev.vigil.kit.db.Database;
import dev.vigil.kit.http.BearerToken;
import dev.vigil.kit.http.Health;
import dev.vigil.kit.http.HttpJson;
import dev.vigil.kit.http.OpenApiRoute;
import dev.vigil.kit.http.OpsRoutes;
import dev.vigil.kit.metrics.ServiceMetrics;
import dev.vigil.notifier.channel.ChannelRoutesFile;
import dev.vigil.notifier.instances.ChannelState;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * /health (checks {@code database} and {@code intake}), /health/live, /metrics and the operator
 * API:
 *
 * <ul>
 *   <li>{@code GET /admin/services} — pending and dead counts per service and channel
 *   <li>{@code GET /admin/channels} — per channel: the running instances that have it, its backlog,
 *       and whether it waits for an instance
 *   <li>{@code GET /admin/groups[?channel=]} — open groups per channel (Slack, PagerDuty): since
 *       when, services DOWN, transitions waiting for the next message, when it is due
 *   <li>{@code GET /admin/receipts?status=DEAD|PENDING|DELIVERED|SKIPPED[&service=][&channel=]}
 *   <li>{@code POST /admin/receipts/{eventId}/replay[?channel=]} — dead → pending, attempts reset,
 *       same id (every channel of the event, or the one named)
 *   <li>{@code POST /admin/receipts/{eventId}/skip[?channel=]} — give up on it, release the service
 *       on that channel
 * </ul>
 *
 * Admin calls need {@code Authorization: Bearer <VIGIL_NOTIFIER_ADMIN_TOKEN>} and name the operator
 * in {@code X-Vigil-Operator}; who and when are stored with the receipt and in the action log.
 * {@code GET /openapi.yaml} describes every route.
 */
public final class HttpApi implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);

  private final Set<String> registered = new TreeSet<>();
  private final Javalin app;

  public HttpApi(
      int port,
      Database database,
      ServiceMetrics metrics,
      String adminToken,
      Supplier<String> intakeProblem,
      Runnable afterReplay,
      ChannelViews channels) {
    OperatorStore operators = new OperatorStore(database);
    DatabaseReadiness readiness =
        new DatabaseReadiness(database.dataSource(), DatabaseReadiness.DEFAULT_TIMEOUT);
    BearerToken token =
        adminToken == null || adminToken.isBlank() ? null : new BearerToken(adminToken);
    this.app =
        Javalin.create(
            config -> {
              HttpJson.configure(config);
              config.events.handlerAdded(handler -> OpenApiRoute.collect(registered, handler));
              config.jetty.port = port;
              OpsRoutes.register(
                  config,
                  () -> {
                    String intakeDown = intakeProblem.get();
                    return Health.builder()
                        .check("database", readiness.answers())
                        .check("intake", Health.Check.of(intakeDown == null, intakeDown))
                        .check("channels", channelsCheck(channels.lastKnown().get()))
                        .build();
                  },
                  metrics);
              OpenApiRoute.register(config.routes, HttpApi.class);
              config.routes.before("/admin/*", ctx -> authorize(ctx, token));
              config.routes.get("/admin/services", ctx -> json(ctx, 200, operators.services()));
              config.routes.get("/admin/channels", ctx -> json(ctx, 200, channels.current().get()));
              config.routes.get(
                  "/admin/groups",
                  ctx -> {
                    String channel = channel(ctx);
                    if (channel != null) {
                      json(ctx, 200, channels.groups().apply(channel.isEmpty() ? null : channel));
                    }
                  });
              config.routes.get(
                  "/admin/receipts",
                  ctx -> {
                    String status =
                        ctx.queryParamAsClass("status", String.class).getOrDefault("DEAD");
                    if (!List.of("PENDING", "DEAD", "DELIVERED", "SKIPPED").contains(status)) {
                      badRequest(
                          ctx, "status", "status must be PENDING, DEAD, DELIVERED or SKIPPED");
                      return;
                    }
                    String service = ctx.queryParam("service");
                    if (service != null && !service.isEmpty()) {
                      if (!ServiceNames.isValid(service)) {
                        badRequest(
                            ctx,
                            "service",
                            "service must be a service name (1-50 characters of a-z, 0-9, '_' or"
                                + " '-', starting with a letter or digit)");
                        return;
                      }
                    } else {
                      service = null;
                    }
                    String channel = channel(ctx);
                    if (channel != null) {
                      json(
                          ctx,
                          200,
                          operators.receipts(status, service, channel.isEmpty() ? null : channel));
                    }
                  });
              config.routes.post(
                  "/admin/receipts/{eventId}/replay",
                  ctx -> {
                    if (act(
                        ctx, "replay", (id, channel, who) -> operators.replay(id, channel, who))) {
                      afterReplay.run();
                    }
                  });
              config.routes.post(
                  "/admin/receipts/{eventId}/skip",
                  ctx -> {
                    if (act(ctx, "skip", (id, channel, who) -> operators.skip(id, channel, who))) {
                      afterReplay.run();
                    }
                  });
            });
    app.start();
  }

  public int port() {
    return app.port();
  }

  /** Every registered route as {@code "GET /admin/services"} (for the OpenAPI test). */
  Set<String> routes() {
    return Set.copyOf(registered);
  }

  private interface Action {
    /** {@code channel} null: every channel of the event. */
    boolean apply(UUID eventId, String channel, String operator);
  }

  /**
   * The {@code channel} query parameter: "" when absent, null (after answering 400) when it is not
   * a channel name or is given more than once (which of two would be meant is not known).
   */
  private static String channel(Context ctx) {
    if (ctx.queryParams("channel").size() > 1) {
      badRequest(ctx, "channel", "channel is given more than once");
      return null;
    }
    String channel = ctx.queryParam("channel");
    if (channel == null || channel.isEmpty()) {
      return "";
    }
    if (!channel.matches(ChannelRoutesFile.NAME)) {
      badRequest(ctx, "channel", "channel must be a channel name");
      return null;
    }
    return channel;
  }

  private static boolean act(Context ctx, String action, Action operation) {
    String operator = ctx.header("X-Vigil-Operator");
    if (operator == null
        || operator.isBlank()
        || operator.length() > 100
        || operator.chars().anyMatch(c -> Character.isISOControl(c) || c > 0x7e)) {
      badRequest(
          ctx,
          "X-Vigil-Operator",
          "name the operator in the X-Vigil-Operator header (1-100 printable ASCII characters)");
      return false;
    }
    UUID eventId;
    try {
      eventId = UUID.fromString(ctx.pathParam("eventId"));
    } catch (IllegalArgumentException e) {
      badRequest(ctx, "eventId", "eventId must be a UUID");
      return false;
    }
    String channel = channel(ctx);
    if (channel == null) {
      return false;
    }
    boolean done = operation.apply(eventId, channel.isEmpty() ? null : channel, operator.strip());
    LOG.info(
        "operator action action={} event_id={} operator=\"{}\" applied={}",
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

  /**
   * Always UP (a limited or unserved channel is not this instance's failure, and taking it out of
   * service would not help); the detail and data name the channels being limited (with their queue
   * and its age) and those waiting for an instance.
   */
  static Health.Check channelsCheck(List<ChannelState> states) {
    List<String> notes = new ArrayList<>();
    List<Map<String, Object>> limited = new ArrayList<>();
    List<Map<String, Object>> waiting = new ArrayList<>();
    for (ChannelState state : states) {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("channel", state.channel());
      entry.put("pending", state.pending());
      entry.put("oldestPendingAgeSeconds", Math.round(state.oldestPendingAgeSeconds()));
      if (state.limited()) {
        entry.put("limitedBy", state.limitedBy());
        entry.put("limitedForSeconds", Math.round(state.limitedForSeconds()));
        limited.add(entry);
        notes.add(
            "%s limited by %s (%d pending, oldest %ds)"
                .formatted(
                    state.channel(),
                    state.limitedBy(),
                    state.pending(),
                    Math.round(state.oldestPendingAgeSeconds())));
      } else if (state.waitingForInstance()) {
        waiting.add(entry);
        notes.add(
            "%s waits for an instance that has it (%d pending)"
                .formatted(state.channel(), state.pending()));
      }
    }
    if (notes.isEmpty()) {
      return Health.Check.of(true);
    }
    return new Health.Check(
        Health.UP,
        String.join("; ", notes),
        Map.of("limited", limited, "waitingForInstance", waiting));
  }

  private static void authorize(Context ctx, BearerToken token) {
    if (token == null) {
      json(ctx, 403, Map.of("error", "admin API disabled (VIGIL_NOTIFIER_ADMIN_TOKEN not set)"));
      ctx.skipRemainingHandlers();
      return;
    }
    if (!token.presentedBy(ctx)) {
      ctx.header("WWW-Authenticate", "Bearer");
      json(ctx, 401, Map.of("error", "missing or wrong bearer token"));
      ctx.skipRemainingHandlers();
    }
  }

  private static void badRequest(Context ctx, String field, String reason) {
    json(ctx, 400, Map.of("error", reason, "field", field));
  }

  private static void json(Context ctx, int status, Object body) {
    ctx.status(status).json(body);
  }

  @Override
  public void close() {
    app.stop();
  }
}
