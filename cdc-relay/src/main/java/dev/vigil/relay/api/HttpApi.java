package dev.vigil.relay.api;

import dev.vigil.kit.http.Health;
import dev.vigil.kit.http.HttpJson;
import dev.vigil.kit.http.OpsRoutes;
import dev.vigil.kit.metrics.ServiceMetrics;
import dev.vigil.relay.ops.RelayMetrics;
import dev.vigil.relay.ops.RelayStatus;
import io.javalin.Javalin;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The relay's HTTP endpoints. {@code GET /health} has one check, {@code stream}: {@code UP} while
 * streaming, {@code STANDBY} while another instance holds the lock (both 200), {@code DOWN} with
 * the reason while failing (503); its {@code data} shows the state ({@code
 * streaming|standby|failing}), the instance id, whether it holds the lock ({@code active}), since
 * when, the slot lag in bytes, and {@code largeTransaction} while a PostgreSQL transaction is too
 * large for one Kafka transaction (its xid and rows so far; see {@code LargeTransactions}). {@code
 * GET /health/live}, {@code GET /metrics}: as every service.
 */
public final class HttpApi implements AutoCloseable {
  private final Javalin app;

  private HttpApi(Javalin app) {
    this.app = app;
  }

  /** Starts the server on {@code port} (0 = any free port). */
  public static HttpApi start(
      int port, RelayStatus status, RelayMetrics relayMetrics, ServiceMetrics metrics) {
    Javalin app =
        Javalin.create(
            config -> {
              HttpJson.configure(config);
              OpsRoutes.register(config, () -> health(status, relayMetrics), metrics);
            });
    app.start(port);
    return new HttpApi(app);
  }

  public int port() {
    return app.port();
  }

  @Override
  public void close() {
    app.stop();
  }

  static Health health(RelayStatus status, RelayMetrics metrics) {
    RelayStatus.Snapshot snapshot = status.snapshot();
    String checkStatus =
        switch (snapshot.state()) {
          case STREAMING -> Health.UP;
          case STANDBY -> "STANDBY";
          case FAILING -> Health.DOWN;
        };
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("state", snapshot.state().name().toLowerCase(Locale.ROOT));
    data.put("instance", status.instanceId());
    data.put("active", status.active());
    data.put("since", snapshot.since().toString());
    data.put("slotLagBytes", metrics.slotLagBytes());
    if (status.largeTransaction() != null) {
      data.put("largeTransaction", status.largeTransaction());
    }
    return Health.builder()
        .check("stream", new Health.Check(checkStatus, snapshot.reason(), data))
        .build();
  }
}
