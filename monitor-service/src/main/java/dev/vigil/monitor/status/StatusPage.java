package dev.vigil.monitor.status;

import dev.vigil.contract.ServiceNames;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The read-only status page: {@code GET /status} (services 100 a page, down first, with {@code
 * ?page=}, {@code ?q=} name prefix and {@code ?state=} filter; uptime, charts, incidents), {@code
 * GET /status/services/{name}} (one service with its history), {@code ?fragment=1} on either for
 * the live part alone (what the page's script fetches to refresh without reloading), SVG badges
 * {@code /status/badges/{name}/state.svg} and {@code …/uptime.svg?window=24h|7d|30d}, and the
 * page's CSS and script. Public, or behind the API token ({@link StatusAccess}).
 */
public final class StatusPage {
  private static final int INCIDENTS_ON_OVERVIEW = 20;
  private static final String DETAILS = "vigil.status.details";
  private static final int INCIDENTS_ON_SERVICE = 50;
  private static final int CHECKS_ON_SERVICE = 120;
  private static final String SVG = "image/svg+xml; charset=utf-8";
  private static final String HTML = "text/html; charset=utf-8";
  private static final Map<String, String> ASSETS =
      Map.of(
          "status.css", "text/css; charset=utf-8", "status.js", "text/javascript; charset=utf-8");
  private static final String POLICY =
      "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self';"
          + " img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

  private final StatusReads reads;
  private final OverviewReads overviewReads;
  private final QuietSection quiet;
  private final StatusAccess access;
  private final long refreshSeconds;
  private final Templates templates = new Templates();

  /**
   * @param refresh how often an open page fetches its live part again
   */
  public StatusPage(DataSource dataSource, StatusAccess access, Duration refresh) {
    this.reads = new StatusReads(dataSource);
    this.overviewReads = new OverviewReads(dataSource);
    this.quiet = new QuietSection(dataSource);
    this.access = access;
    this.refreshSeconds = Math.max(1, refresh.toSeconds());
  }

  /** Registers the routes (and the access check in front of them). */
  public void register(RoutesConfig routes) {
    routes.before("/status", this::guard);
    routes.before("/status/*", this::guard);
    routes.get("/status", this::overview);
    routes.get("/status/services/{name}", this::service);
    routes.get("/status/badges/{name}/state.svg", this::stateBadge);
    routes.get("/status/badges/{name}/uptime.svg", this::uptimeBadge);
    routes.get("/status/assets/{file}", this::asset);
  }

  private void guard(Context ctx) {
    ctx.header("X-Content-Type-Options", "nosniff");
    ctx.header("Content-Security-Policy", POLICY);
    ctx.header("Referrer-Policy", "no-referrer");
    // What a page shows depends on the token presented (details), so caches must key on it.
    ctx.header("Vary", "Authorization");
    ctx.attribute(DETAILS, access.details(ctx.header("Authorization")));
    if (!access.allows(ctx.header("Authorization"))) {
      ctx.header("WWW-Authenticate", StatusAccess.CHALLENGE);
      ctx.status(401).contentType("text/plain; charset=utf-8");
      ctx.result("The status page needs the monitor's API token.\n");
      ctx.skipRemainingHandlers();
    }
  }

  private void overview(Context ctx) {
    if (!fragmentValid(ctx)) {
      return;
    }
    OverviewQuery query;
    try {
      query =
          OverviewQuery.parse(ctx.queryParam("page"), ctx.queryParam("q"), ctx.queryParam("state"));
    } catch (OverviewQuery.Invalid e) {
      problem(ctx, 400, "Invalid " + e.field(), e.getMessage());
      return;
    }
    Views.Overview overview =
        Views.overview(overviewReads.read(query, INCIDENTS_ON_OVERVIEW), query, details(ctx));
    html(
        ctx,
        200,
        fragment(ctx)
            ? templates.overviewFragment(overview, quiet.read(null, details(ctx)))
            : templates.overviewPage(
                new Templates.Page("Vigil status", refreshSeconds, query.href(), overview),
                quiet.read(null, details(ctx))));
  }

  private void service(Context ctx) {
    if (!fragmentValid(ctx)) {
      return;
    }
    String name = serviceName(ctx);
    if (name == null) {
      return;
    }
    StatusReads.Snapshot snapshot = reads.read(name, INCIDENTS_ON_SERVICE, CHECKS_ON_SERVICE);
    if (snapshot.services().isEmpty()) {
      problem(ctx, 404, "Unknown service", "No service is named '" + name + "'.");
      return;
    }
    Views.ServicePage page = Views.servicePage(snapshot, details(ctx));
    html(
        ctx,
        200,
        fragment(ctx)
            ? templates.serviceFragment(page, quiet.read(name, details(ctx)))
            : templates.servicePage(
                new Templates.Page(
                    name + " · Vigil status", refreshSeconds, Views.href(name), page),
                quiet.read(name, details(ctx))));
  }

  private void stateBadge(Context ctx) {
    StatusReads.ServiceRow row = badgeService(ctx);
    if (row != null) {
      String state = row.enabled() ? row.state() : "DISABLED";
      badge(
          ctx,
          200,
          Badge.of(row.name(), state.toLowerCase(java.util.Locale.ROOT), Badge.stateColor(state)));
    }
  }

  private void uptimeBadge(Context ctx) {
    String window = ctx.queryParam("window") == null ? "30d" : ctx.queryParam("window");
    if (!window.equals("24h") && !window.equals("7d") && !window.equals("30d")) {
      badge(ctx, 400, Badge.of("uptime", "window must be 24h, 7d or 30d", Badge.stateColor("")));
      return;
    }
    StatusReads.ServiceRow row = badgeService(ctx);
    if (row != null) {
      Uptime uptime =
          switch (window) {
            case "24h" -> row.day();
            case "7d" -> row.week();
            default -> row.month();
          };
      badge(
          ctx,
          200,
          Badge.of("uptime " + window, uptime.percent(), Badge.uptimeColor(uptime.grade())));
    }
  }

  private StatusReads.ServiceRow badgeService(Context ctx) {
    String name;
    try {
      name = ServiceNames.normalize(ctx.pathParam("name"));
    } catch (IllegalArgumentException e) {
      badge(ctx, 400, Badge.of("vigil", "invalid service name", Badge.stateColor("")));
      return null;
    }
    StatusReads.Snapshot snapshot = reads.read(name, 0, 0);
    if (snapshot.services().isEmpty()) {
      badge(ctx, 404, Badge.of(name, "unknown service", Badge.stateColor("")));
      return null;
    }
    return snapshot.services().get(0);
  }

  private void badge(Context ctx, int status, Badge badge) {
    String svg = templates.badge(badge);
    String etag = "\"" + digest(svg) + "\"";
    ctx.header("Cache-Control", access.cacheScope(details(ctx)) + ", max-age=60");
    ctx.header("ETag", etag);
    if (status == 200 && etag.equals(ctx.header("If-None-Match"))) {
      ctx.status(304);
      return;
    }
    ctx.status(status).contentType(SVG).result(svg);
  }

  private void asset(Context ctx) {
    String file = ctx.pathParam("file");
    String type = ASSETS.get(file);
    if (type == null) {
      problem(ctx, 404, "Not found", "There is no such file.");
      return;
    }
    try (InputStream in = StatusPage.class.getResourceAsStream("/status/" + file)) {
      if (in == null) {
        throw new IllegalStateException("status page asset missing from the jar: " + file);
      }
      ctx.header("Cache-Control", access.cacheScope(details(ctx)) + ", max-age=300");
      ctx.contentType(type).result(in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("reading status page asset " + file, e);
    }
  }

  /** The normalized {@code name} path parameter, or null after answering 400. */
  private String serviceName(Context ctx) {
    try {
      return ServiceNames.normalize(ctx.pathParam("name"));
    } catch (IllegalArgumentException e) {
      problem(ctx, 400, "Invalid service name", e.getMessage());
      return null;
    }
  }

  private void problem(Context ctx, int status, String title, String detail) {
    html(ctx, status, templates.error(new Templates.Problem(title, Format.text(detail, 300))));
  }

  private void html(Context ctx, int status, String body) {
    ctx.header("Cache-Control", access.cacheScope(details(ctx)) + ", no-cache");
    ctx.status(status).contentType(HTML).result(body);
  }

  /** Whether {@code fragment} is absent or 1; answers 400 naming it otherwise. */
  private boolean fragmentValid(Context ctx) {
    String fragment = ctx.queryParam("fragment");
    if (fragment == null || fragment.equals("1")) {
      return true;
    }
    problem(ctx, 400, "Invalid fragment", "fragment must be 1 or absent.");
    return false;
  }

  /** Whether this request sees DOWN reasons, silence reasons and who acknowledged. */
  private static boolean details(Context ctx) {
    return Boolean.TRUE.equals(ctx.attribute(DETAILS));
  }

  private static boolean fragment(Context ctx) {
    return "1".equals(ctx.queryParam("fragment"));
  }

  private static String digest(String text) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash, 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
