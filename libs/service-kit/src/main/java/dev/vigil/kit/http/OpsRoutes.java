package dev.vigil.kit.http;

import dev.vigil.kit.metrics.ServiceMetrics;
import io.javalin.config.JavalinConfig;
import io.micrometer.core.instrument.Gauge;
import java.util.function.Supplier;

/**
 * The routes every Vigil server has, registered the same way: {@code GET /health/live} (200 while
 * the process answers), {@code GET /health} ({@link Health}: 200 when up, 503 when down) and {@code
 * GET /metrics} (Prometheus text). The metrics include {@code vigil_<service>_ready}: 1 while
 * {@code /health} would answer 200, 0 while it would answer 503, computed at each scrape, so an
 * alert rule sees readiness without probing {@code /health} itself.
 */
public final class OpsRoutes {
  /** The Prometheus text exposition content type. */
  public static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private OpsRoutes() {}

  /**
   * Registers the three routes on {@code config} and the {@code ready} gauge on {@code metrics}.
   *
   * @param health builds the current health on each request (may block briefly, e.g. {@link
   *     dev.vigil.kit.DatabaseReadiness})
   */
  public static void register(
      JavalinConfig config, Supplier<Health> health, ServiceMetrics metrics) {
    config.routes.get("/health/live", ctx -> ctx.json(Health.builder().build()));
    config.routes.get(
        "/health",
        ctx -> {
          Health current = health.get();
          ctx.status(current.httpStatus()).json(current);
        });
    Gauge.builder(metrics.name("ready"), () -> health.get().up() ? 1 : 0)
        .description("1 while GET /health answers 200 (every check up), 0 while it answers 503")
        .register(metrics.registry());
    config.routes.get("/metrics", ctx -> ctx.contentType(PROMETHEUS_TEXT).result(metrics.scrape()));
  }
}
