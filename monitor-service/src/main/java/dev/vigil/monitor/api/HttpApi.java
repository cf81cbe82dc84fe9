package dev.vigil.monitor.api;

import dev.vigil.kit.http.BearerToken;
import dev.vigil.kit.http.Health;
import dev.vigil.kit.http.HttpJson;
import dev.vigil.kit.http.OpenApiRoute;
import dev.vigil.kit.http.OpsRoutes;
import dev.vigil.kit.metrics.ServiceMetrics;
import dev.vigil.kit.tracing.Tracing;
import dev.vigil.monitor.alert.Acknowledger;
import dev.vigil.monitor.alert.Recorder;
import dev.vigil.monitor.alert.UnknownServiceException;
import dev.vigil.monitor.quiet.InvalidQuietException;
import dev.vigil.monitor.quiet.PrefixWindows;
import dev.vigil.monitor.quiet.Silences;
import dev.vigil.monitor.replay.OutboxReplay;
import dev.vigil.monitor.status.StatusPage;
import dev.vigil.monitor.targets.InvalidTargetException;
import dev.vigil.monitor.targets.TargetStore;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.time.Clock;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The monitor's HTTP API. Reads of services, incidents, silences and maintenance windows are open;
 * every mutating call ({@code POST}, {@code PUT}, {@code DELETE}) and every read of target
 * definitions ({@code /api/targets…}, which name hosts and paths) needs {@code Authorization:
 * Bearer <token>}. Open reads show DOWN reasons, silence reasons and who acknowledged only with the
 * token or with {@code VIGIL_MONITOR_PUBLIC_DETAILS=all}. An unknown service is 404; an invalid
 * body is 400 with {@code field} and {@code error}; a refused request writes nothing (validation
 * happens before the single transaction that writes). Pushed results go through the same {@link
 * Recorder} as scheduled probes. {@code /health} has the checks {@code database} and {@code
 * targets} (UP; names unreadable stored targets). The status page ({@link StatusPage}) has its own
 * access rule; {@code GET /openapi.yaml} describes every route.
 */
public final class HttpApi implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
  private static final Set<HandlerType> MUTATING =
      Set.of(HandlerType.POST, HandlerType.PUT, HandlerType.DELETE, HandlerType.PATCH);

  private final TargetStore targets;
  private final Recorder recorder;
  private final ServiceMetrics metrics;
  private final StatusQueries queries;
  private final BearerToken token;
  private final boolean publicDetails;
  private final Clock clock;
  private final StatusPage statusPage;
  private final DataSource dataSource;
  private final OutboxReplay replay;
  private final Tracing tracing;
  private final Set<String> registered = new TreeSet<>();
  private final Javalin app;

  public HttpApi(
      DataSource dataSource,
      TargetStore targets,
      Recorder recorder,
      ServiceMetrics metrics,
      String apiToken,
      boolean publicDetails,
      Clock clock,
      StatusPage statusPage,
      OutboxReplay replay) {
    this(
        dataSource,
        targets,
        recorder,
        metrics,
        apiToken,
        publicDetails,
        clock,
        statusPage,
        replay,
        Tracing.none());
  }

  /**
   * @param tracing where each pushed result's span is started
   */
  public HttpApi(
      DataSource dataSource,
      TargetStore targets,
      Recorder recorder,
      ServiceMetrics metrics,
      String apiToken,
      boolean publicDetails,
      Clock clock,
      StatusPage statusPage,
      OutboxReplay replay,
      Tracing tracing) {
    this.tracing = tracing;
    this.targets = targets;
    this.recorder = recorder;
    this.metrics = metrics;
    this.queries = new StatusQueries(dataSource, clock);
    this.token = new BearerToken(apiToken);
    this.publicDetails = publicDetails;
    this.clock = clock;
    this.statusPage = statusPage;
    this.dataSource = dataSource;
    this.replay = replay;
    this.app = Javalin.create(this::configure);
  }

  /** Binds {@code port} (0 = any free port) and serves. */
  public HttpApi start(int port) {
    app.start(port);
    return this;
  }

  /** The port actually bound. */
  public int port() {
    return app.port();
  }

  private void configure(JavalinConfig config) {
    HttpJson.configure(config);
    config.events.handlerAdded(handler -> OpenApiRoute.collect(registered, handler));
    var routes = config.routes;
    routes.before("/api/*", this::authorize);
    OpsRoutes.register(
        config,
        () -> {
          boolean database = queries.databaseReachable();
          Health.Builder health = Health.builder().check("database", database);
          if (database) {
            health.check("targets", queries.unreadableTargets());
            health.check("locations", queries.degradedTargets());
          }
          return health.build();
        },
        metrics);
    new ServiceRoutes(queries, targets, recorder, clock, this::details, tracing.tracer())
        .register(routes);
    new TargetRoutes(targets).register(routes);
    new UptimeRoutes(new UptimeQueries(dataSource)).register(routes);
    new QuietRoutes(
            new Silences(dataSource),
            new PrefixWindows(dataSource),
            new Acknowledger(dataSource),
            this::details)
        .register(routes);
    new ReplayRoutes(replay).register(routes);
    statusPage.register(routes);
    OpenApiRoute.register(routes, HttpApi.class);
    routes.exception(
        ApiException.class, (e, ctx) -> Http.error(ctx, e.status(), e.field(), e.getMessage()));
    routes.exception(
        InvalidTargetException.class, (e, ctx) -> Http.error(ctx, 400, e.field(), e.getMessage()));
    routes.exception(
        InvalidQuietException.class, (e, ctx) -> Http.error(ctx, 400, e.field(), e.reason()));
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

  /** Every registered route as {@code "GET /api/services"}, in order (for the OpenAPI test). */
  Set<String> routes() {
    return Set.copyOf(registered);
  }

  /**
   * Whether this read shows DOWN reasons, silence reasons and authors, and who acknowledged: always
   * with the token, without it only when {@code VIGIL_MONITOR_PUBLIC_DETAILS=all}.
   */
  private boolean details(Context ctx) {
    return publicDetails || token.presentedBy(ctx);
  }

  private void authorize(Context ctx) {
    if ((MUTATING.contains(ctx.method()) || isTargetsPath(ctx.path())) && !token.presentedBy(ctx)) {
      ctx.header("WWW-Authenticate", "Bearer");
      throw new ApiException(401, "Authorization", "a valid bearer token is required");
    }
  }

  private static boolean isTargetsPath(String path) {
    return path.equals("/api/targets") || path.startsWith("/api/targets/");
  }

  @Override
  public void close() {
    app.stop();
  }
}
