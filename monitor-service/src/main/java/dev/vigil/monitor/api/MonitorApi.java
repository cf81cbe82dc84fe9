package dev.vigil.monitor.api;

import dev.vigil.monitor.alert.Recorder;
import dev.vigil.monitor.alert.UnknownServiceException;
import dev.vigil.monitor.target.InvalidTargetException;
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
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The monitor's HTTP API. Reads of services and incidents are open; every mutating call ({@code
 * POST}, {@code PUT}, {@code DELETE}) and every read of target definitions ({@code /api/targets…},
 * which name hosts and paths) needs {@code Authorization: Bearer <token>}. An unknown service is
 * 404; an invalid body is 400 with {@code field} and {@code error}; a refused request writes
 * nothing (validation happens before the single transaction that writes). Pushed results go through
 * the same {@link Recorder} as scheduled probes.
 */
public final class MonitorApi implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MonitorApi.class);
  private static final Set<HandlerType> MUTATING =
      Set.of(HandlerType.POST, HandlerType.PUT, HandlerType.DELETE, HandlerType.PATCH);

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
    routes.get("/health/live", ctx -> Http.json(ctx, 200, Map.of("status", "UP")));
    routes.get("/health", this::health);
    routes.get(
        "/metrics",
        ctx ->
            ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(metrics.scrape()));
    new ServiceRoutes(queries, targets, recorder, clock).register(routes);
    new TargetRoutes(targets).register(routes);
    routes.exception(
        ApiException.class, (e, ctx) -> Http.error(ctx, e.status(), e.field(), e.getMessage()));
    routes.exception(
        InvalidTargetException.class, (e, ctx) -> Http.error(ctx, 400, e.field(), e.getMessage()));
    routes.exception(
        UnknownServiceException.class, (e, ctx) -> Http.error(ctx, 404, null, e.getMessage()));
    routes.exception(
        Exception.class,
        (e, ctx) -> {
          LOG.warn(
              "request failed method={} path={} error={}", ctx.method(), ctx.path(), e.toString());
          Http.error(ctx, 500, null, "internal error");
        });
  }

  private void authorize(Context ctx) {
    if (!MUTATING.contains(ctx.method()) && !isTargetsPath(ctx.path())) {
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

  private static boolean isTargetsPath(String path) {
    return path.equals("/api/targets") || path.startsWith("/api/targets/");
  }

  private void health(Context ctx) {
    boolean database = queries.databaseReachable();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", database ? "UP" : "DOWN");
    body.put("live", true);
    body.put("ready", database);
    body.put("checks", Map.of("database", database ? "UP" : "DOWN"));
    Http.json(ctx, database ? 200 : 503, body);
  }

  @Override
  public void close() {
    app.stop();
  }
}
