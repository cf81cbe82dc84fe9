package dev.vigil.monitor.api;

import dev.vigil.monitor.alert.UnknownServiceException;
import dev.vigil.monitor.target.TargetParser;
import dev.vigil.monitor.target.TargetSpec;
import dev.vigil.monitor.target.TargetStore;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Target management: list, read, add, update, enable and disable. */
final class TargetRoutes {
  private static final Logger LOG = LoggerFactory.getLogger(TargetRoutes.class);

  private final TargetStore targets;

  TargetRoutes(TargetStore targets) {
    this.targets = targets;
  }

  void register(RoutesConfig routes) {
    routes.get(
        "/api/targets",
        ctx ->
            Http.json(
                ctx,
                200,
                Map.of("targets", targets.list().stream().map(TargetRoutes::describe).toList())));
    routes.get("/api/targets/{name}", ctx -> Http.json(ctx, 200, describe(existingTarget(ctx))));
    routes.post("/api/targets", this::addTarget);
    routes.put("/api/targets/{name}", this::updateTarget);
    routes.post("/api/targets/{name}/disable", ctx -> setEnabled(ctx, false));
    routes.post("/api/targets/{name}/enable", ctx -> setEnabled(ctx, true));
  }

  private void addTarget(Context ctx) {
    TargetSpec spec = TargetParser.parse("request body", "", Http.body(ctx), null);
    if (!targets.add(spec)) {
      throw new ApiException(409, "name", "target '" + spec.name() + "' already exists");
    }
    LOG.info("target added service={}", spec.name());
    Http.json(ctx, 201, describe(spec));
  }

  private void updateTarget(Context ctx) {
    String name = Http.name(ctx);
    TargetSpec spec = TargetParser.parse("request body", "", Http.body(ctx), name);
    targets.update(spec);
    LOG.info("target updated service={}", spec.name());
    Http.json(ctx, 200, describe(spec));
  }

  private void setEnabled(Context ctx, boolean enabled) {
    String name = Http.name(ctx);
    targets.setEnabled(name, enabled);
    LOG.info("target {} service={}", enabled ? "enabled" : "disabled", name);
    Http.json(ctx, 200, describe(existingTarget(ctx)));
  }

  private TargetSpec existingTarget(Context ctx) {
    String name = Http.name(ctx);
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
}
