package dev.vigil.relay.ops;

import io.javalin.Javalin;

/**
 * The relay's HTTP endpoints. {@code GET /health}: 200 with {@code {"status":"streaming"}} or
 * {@code "standby"}, 503 with {@code "failing"} and the reason; also the instance id, whether it
 * holds the lock ({@code active}), since when, and the slot lag in bytes. {@code GET /metrics}:
 * Prometheus text.
 */
public final class OpsServer implements AutoCloseable {
  private final Javalin app;

  private OpsServer(Javalin app) {
    this.app = app;
  }

  /** Starts the server on {@code port} (0 = any free port). */
  public static OpsServer start(int port, RelayStatus status, RelayMetrics metrics) {
    Javalin app =
        Javalin.create(
            config -> {
              config.startup.showJavalinBanner = false;
              config.routes.get(
                  "/health",
                  ctx -> {
                    RelayStatus.Snapshot snapshot = status.snapshot();
                    ctx.status(snapshot.state() == RelayStatus.State.FAILING ? 503 : 200);
                    ctx.contentType("application/json");
                    ctx.result(healthJson(status, snapshot, metrics));
                  });
              config.routes.get(
                  "/metrics",
                  ctx -> {
                    ctx.contentType("text/plain; version=0.0.4; charset=utf-8");
                    ctx.result(metrics.scrape());
                  });
            });
    app.start(port);
    return new OpsServer(app);
  }

  public int port() {
    return app.port();
  }

  @Override
  public void close() {
    app.stop();
  }

  static String healthJson(
      RelayStatus status, RelayStatus.Snapshot snapshot, RelayMetrics metrics) {
    StringBuilder json = new StringBuilder("{\"status\":\"");
    json.append(snapshot.state().name().toLowerCase(java.util.Locale.ROOT)).append('"');
    json.append(",\"instance\":").append(quote(status.instanceId()));
    json.append(",\"active\":").append(status.active());
    json.append(",\"reason\":")
        .append(snapshot.reason() == null ? "null" : quote(snapshot.reason()));
    json.append(",\"since\":\"").append(snapshot.since()).append('"');
    json.append(",\"slotLagBytes\":").append(metrics.slotLagBytes());
    return json.append('}').toString();
  }

  private static String quote(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
