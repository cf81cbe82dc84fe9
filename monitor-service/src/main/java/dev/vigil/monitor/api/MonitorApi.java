package dev.vigil.monitor.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.vigil.contract.ServiceNames;
import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.alert.RecordOutcome;
import dev.vigil.monitor.alert.Recorder;
import dev.vigil.monitor.alert.UnknownServiceException;
import dev.vigil.monitor.target.InvalidTargetException;
import dev.vigil.monitor.target.TargetKind;
import dev.vigil.monitor.target.TargetParser;
import dev.vigil.monitor.target.TargetSpec;
import dev.vigil.monitor.target.TargetStore;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The monitor's HTTP API. Reads are open; every mutating call ({@code POST}, {@code PUT}, {@code
 * DELETE}) needs {@code Authorization: Bearer <token>}. An unknown service is 404; an invalid body
 * is 400 with {@code field} and {@code error}; a refused request writes nothing (validation happens
 * before the single transaction that writes). Pushed results go through the same {@link Recorder}
 * as scheduled probes.
 */
public final class MonitorApi implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MonitorApi.class);
  private static final Set<HandlerType> MUTATING =
      Set.of(HandlerType.POST, HandlerType.PUT, HandlerType.DELETE, HandlerType.PATCH);
  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
          .build();

  private final TargetStore targets;
  private final Recorder recorder;
  private final PrometheusMeterRegistry metrics;
  private final StatusQueries queries;
  private final byte[] token;
  private final Clock clock;
  private final Javalin app;

  public MonitorApi(
      javax.sql.DataSource dataSource,
      TargetStore targets,
      Recorder recorder,
      PrometheusMeterRegistry metrics,
      String apiToken,
      Clock clock) {
    this.targets = targets;
    this.recorder = recorder;
    this.metrics = metrics;
    this.queries = new StatusQueries(dataSource, clock);
    this.token = apiToken.getBytes(StandardCharsets.UTF_8);
    this.clock = clock;
    this.app = Javalin.create(this::configure);
  }

  /** Binds {@code port} (0 = any free port) and serves. */
  public MonitorApi start(int port) {
    app.start(port);
    return this;
  }

  /** The port actually bound. */
  public int port() {
    return app.port();
  }

  private void configure(JavalinConfig config) {
    config.startup.showJavalinBanner = false;
    config.concurrency.useVirtualThreads = true;
    var routes = config.routes;
    routes.before("/api/*", this::authorize);
    routes.get("/health/live", ctx -> json(ctx, 200, Map.of("status", "UP")));
    routes.get("/health", this::health);
    routes.get(
        "/metrics",
        ctx ->
            ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(metrics.scrape()));
    routes.get("/api/services", ctx -> json(ctx, 200, Map.of("services", queries.services(null))));
    routes.get("/api/services/{name}", ctx -> json(ctx, 200, service(ctx)));
    routes.get("/api/services/{name}/history", this::history);
    routes.post("/api/services/{name}/results", this::push);
    routes.get("/api/incidents", this::incidents);
    routes.get(
        "/api/targets",
        ctx ->
            json(
                ctx,
                200,
                Map.of("targets", targets.list().stream().map(MonitorApi::describe).toList())));
    routes.get("/api/targets/{name}", ctx -> json(ctx, 200, describe(existingTarget(ctx))));
    routes.post("/api/targets", this::addTarget);
    routes.put("/api/targets/{name}", this::updateTarget);
    routes.post("/api/targets/{name}/disable", ctx -> setEnabled(ctx, false));
    routes.post("/api/targets/{name}/enable", ctx -> setEnabled(ctx, true));
    routes.exception(
        ApiException.class, (e, ctx) -> error(ctx, e.status(), e.field(), e.getMessage()));
    routes.exception(
        InvalidTargetException.class, (e, ctx) -> error(ctx, 400, e.field(), e.getMessage()));
    routes.exception(
        UnknownServiceException.class, (e, ctx) -> error(ctx, 404, null, e.getMessage()));
    routes.exception(
        Exception.class,
        (e, ctx) -> {
          LOG.warn(
              "request failed method={} path={} error={}", ctx.method(), ctx.path(), e.toString());
          error(ctx, 500, null, "internal error");
        });
  }

  private void authorize(Context ctx) {
    if (!MUTATING.contains(ctx.method())) {
      return;
    }
    String header = ctx.header("Authorization");
    byte[] presented =
        header != null && header.startsWith("Bearer ")
            ? header.substring(7).strip().getBytes(StandardCharsets.UTF_8)
            : new byte[0];
    if (!MessageDigest.isEqual(presented, token)) {
      ctx.header("WWW-Authenticate", "Bearer");
      throw new ApiException(401, "Authorization", "a valid bearer token is required");
    }
  }

  private void health(Context ctx) {
    boolean database = queries.databaseReachable();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", database ? "UP" : "DOWN");
    body.put("live", true);
    body.put("ready", database);
    body.put("checks", Map.of("database", database ? "UP" : "DOWN"));
    json(ctx, database ? 200 : 503, body);
  }

  private Map<String, Object> service(Context ctx) {
    String name = name(ctx);
    List<Map<String, Object>> found = queries.services(name);
    if (found.isEmpty()) {
      throw new UnknownServiceException(name);
    }
    return found.get(0);
  }

  private void history(Context ctx) {
    String name = service(ctx).get("service").toString();
    int limit = intParam(ctx, "limit", 50, 1, 500);
    String beforeRaw = ctx.queryParam("before");
    Long before =
        beforeRaw == null ? null : (long) intParam(ctx, "before", 0, 0, Integer.MAX_VALUE);
    List<Map<String, Object>> items = queries.history(name, before, limit);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("service", name);
    body.put("items", items);
    body.put("nextBefore", items.size() == limit ? items.get(items.size() - 1).get("id") : null);
    json(ctx, 200, body);
  }

  private void incidents(Context ctx) {
    String state = ctx.queryParam("state") == null ? "all" : ctx.queryParam("state");
    if (!Set.of("open", "closed", "all").contains(state)) {
      throw ApiException.badRequest("state", "must be open, closed or all");
    }
    String service = ctx.queryParam("service");
    if (service != null) {
      service = normalize(service, "service");
    }
    int limit = intParam(ctx, "limit", 100, 1, 1000);
    json(ctx, 200, Map.of("incidents", queries.incidents(service, state, limit)));
  }

  private void push(Context ctx) {
    String name = name(ctx);
    TargetSpec target = targets.find(name).orElseThrow(() -> new UnknownServiceException(name));
    if (target.kind() != TargetKind.PUSH) {
      throw new ApiException(
          409, "name", "'" + name + "' is probed by the monitor, not a push target");
    }
    if (!target.enabled()) {
      throw new ApiException(409, "name", "target '" + name + "' is disabled");
    }
    ProbeResult result = PushRequests.parse(name, body(ctx), clock.instant());
    RecordOutcome outcome = recorder.record(result);
    if (!outcome.accepted()) {
      throw new ApiException(409, "startedAt", outcome.rejectedReason());
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("accepted", true);
    body.put("consecutiveFailures", outcome.state().failures());
    body.put("consecutiveSuccesses", outcome.state().successes());
    body.put("openIncident", outcome.state().openIncident());
    if (outcome.event() != null) {
      body.put(
          "event",
          Map.of(
              "kind",
              outcome.event().kind(),
              "incidentId",
              outcome.event().incidentId(),
              "eventId",
              outcome.event().eventId()));
    }
    json(ctx, 200, body);
  }

  private void addTarget(Context ctx) {
    TargetSpec spec = TargetParser.parse("request body", "", body(ctx), null);
    if (!targets.add(spec)) {
      throw new ApiException(409, "name", "target '" + spec.name() + "' already exists");
    }
    LOG.info("target added service={}", spec.name());
    json(ctx, 201, describe(spec));
  }

  private void updateTarget(Context ctx) {
    String name = name(ctx);
    TargetSpec spec = TargetParser.parse("request body", "", body(ctx), name);
    targets.update(spec);
    LOG.info("target updated service={}", spec.name());
    json(ctx, 200, describe(spec));
  }

  private void setEnabled(Context ctx, boolean enabled) {
    String name = name(ctx);
    targets.setEnabled(name, enabled);
    LOG.info("target {} service={}", enabled ? "enabled" : "disabled", name);
    json(ctx, 200, describe(existingTarget(ctx)));
  }

  private TargetSpec existingTarget(Context ctx) {
    String name = name(ctx);
    return targets.find(name).orElseThrow(() -> new UnknownServiceException(name));
  }

  private static Map<String, Object> describe(TargetSpec spec) {
    Map<String, Object> target = new LinkedHashMap<>();
    target.put("name", spec.name());
    target.put("type", spec.kind().column());
    target.put("url", spec.url() == null ? null : redacted(spec.url()));
    target.put("method", spec.method());
    target.put("interval", spec.interval().toMillis() + "ms");
    target.put("timeout", spec.timeout().toMillis() + "ms");
    target.put("connectTimeout", spec.connectTimeout().toMillis() + "ms");
    target.put("acceptedStatus", spec.acceptedStatus().spec());
    target.put("failureThreshold", spec.failureThreshold());
    target.put("recoveryThreshold", spec.recoveryThreshold());
    target.put("followRedirects", spec.followRedirects());
    target.put("enabled", spec.enabled());
    return target;
  }

  /** The URL without user info, so credentials are never echoed. */
  private static String redacted(java.net.URI url) {
    return url.getRawUserInfo() == null
        ? url.toString()
        : url.toString().replace(url.getRawUserInfo() + "@", "***@");
  }

  private static String name(Context ctx) {
    return normalize(ctx.pathParam("name"), "name");
  }

  private static String normalize(String raw, String field) {
    try {
      return ServiceNames.normalize(raw);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest(field, e.getMessage());
    }
  }

  private static int intParam(Context ctx, String name, int fallback, int min, int max) {
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

  private static JsonNode body(Context ctx) {
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

  private static void error(Context ctx, int status, String field, String reason) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", reason);
    if (field != null) {
      body.put("field", field);
    }
    json(ctx, status, body);
  }

  private static void json(Context ctx, int status, Object body) {
    try {
      ctx.status(status).contentType("application/json").result(JSON.writeValueAsString(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("response not serializable", e);
    }
  }

  @Override
  public void close() {
    app.stop();
  }
}
