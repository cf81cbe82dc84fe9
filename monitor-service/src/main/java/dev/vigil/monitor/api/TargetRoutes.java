package dev.vigil.monitor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.monitor.alert.UnknownServiceException;
import dev.vigil.monitor.targets.TargetParser;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Target management: list, read, add, update, enable, disable and delete. Every route needs the
 * bearer token (see {@link HttpApi}); definitions are shown with URL credentials, query values,
 * fragments and inline header values redacted. A definition sent here may not read header values
 * from files ({@code valueFile}): only the targets file may.
 */
final class TargetRoutes {
  private static final Logger LOG = LoggerFactory.getLogger(TargetRoutes.class);
  private static final String REDACTED = "<redacted>";

  private final TargetStore targets;

  TargetRoutes(TargetStore targets) {
    this.targets = targets;
  }

  void register(RoutesConfig routes) {
    routes.get(
        "/api/targets", ctx -> Http.json(ctx, 200, Map.of("targets", describeAll(targets.list()))));
    routes.get("/api/targets/{name}", ctx -> Http.json(ctx, 200, describe(existingTarget(ctx))));
    routes.post("/api/targets", this::addTarget);
    routes.put("/api/targets/{name}", this::updateTarget);
    routes.post("/api/targets/{name}/disable", ctx -> setEnabled(ctx, false));
    routes.post("/api/targets/{name}/enable", ctx -> setEnabled(ctx, true));
    routes.delete("/api/targets/{name}", this::deleteTarget);
  }

  private void deleteTarget(Context ctx) {
    String name = Http.name(ctx);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("deleted", name);
    targets.delete(name).ifPresent(event -> body.put("closedIncident", closed(event)));
    Http.json(ctx, 200, body);
  }

  private static Map<String, Object> closed(dev.vigil.contract.AlertEvent event) {
    Map<String, Object> closed = new LinkedHashMap<>();
    closed.put("incidentId", event.incidentId());
    closed.put("eventId", event.eventId());
    closed.put("resolution", event.resolution());
    return closed;
  }

  private static JsonNode object(JsonNode body) {
    if (!body.isObject()) {
      throw ApiException.badRequest("body", "must be a JSON object (a target definition)");
    }
    return body;
  }

  private void addTarget(Context ctx) {
    TargetSpec spec = TargetParser.parse("request body", "", object(Http.body(ctx)), null);
    if (!targets.add(spec)) {
      throw new ApiException(409, "name", "target '" + spec.name() + "' already exists");
    }
    LOG.info("target added service={}", spec.name());
    Http.json(ctx, 201, describe(spec));
  }

  private void updateTarget(Context ctx) {
    String name = Http.name(ctx);
    TargetSpec spec = TargetParser.parse("request body", "", object(Http.body(ctx)), name);
    targets.update(spec);
    LOG.info("target updated service={}", spec.name());
    Http.json(ctx, 200, describe(spec));
  }

  private void setEnabled(Context ctx, boolean enabled) {
    String name = Http.name(ctx);
    var closed = targets.setEnabled(name, enabled);
    LOG.info("target {} service={}", enabled ? "enabled" : "disabled", name);
    Map<String, Object> body = describe(existingTarget(ctx));
    closed.ifPresent(event -> body.put("closedIncident", closed(event)));
    Http.json(ctx, 200, body);
  }

  private TargetSpec existingTarget(Context ctx) {
    String name = Http.name(ctx);
    return targets.find(name).orElseThrow(() -> new UnknownServiceException(name));
  }

  // Unknown parents are those not among the listed targets: no query per target.
  private static List<Map<String, Object>> describeAll(List<TargetSpec> all) {
    java.util.Set<String> names = new java.util.HashSet<>();
    all.forEach(t -> names.add(t.name()));
    return all.stream()
        .map(t -> describe(t, t.dependsOn().stream().filter(p -> !names.contains(p)).toList()))
        .toList();
  }

  private Map<String, Object> describe(TargetSpec spec) {
    return describe(
        spec, spec.dependsOn().isEmpty() ? List.of() : targets.unknown(spec.dependsOn()));
  }

  private static Map<String, Object> describe(TargetSpec spec, List<String> unknown) {
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
    if (spec.heartbeat() != null) {
      target.put("heartbeat", spec.heartbeat().toMillis() + "ms");
    }
    if (spec.remindEvery() != null) {
      target.put("remindEvery", spec.remindEvery().toMillis() + "ms");
    }
    if (!spec.maintenance().isEmpty()) {
      target.put("maintenance", TargetStore.maintenanceJson(spec.maintenance()));
    }
    if (spec.located()) {
      target.put("locations", spec.locations());
      // The quorum in force (given, or the majority it defaults to).
      target.put("quorum", spec.effectiveQuorum());
    }
    if (spec.retryInterval() != null) {
      target.put("retryInterval", spec.retryInterval().toMillis() + "ms");
    }
    if (!spec.dependsOn().isEmpty()) {
      target.put("dependsOn", spec.dependsOn());
      // The settle period in force (given, or the interval it defaults to).
      target.put("dependencySettle", spec.effectiveDependencySettle().toMillis() + "ms");
      // A parent that is not a target (yet) holds nothing back: said so, by name.
      Map<String, String> parents = new LinkedHashMap<>();
      spec.dependsOn()
          .forEach(p -> parents.put(p, unknown.contains(p) ? "unknown parent" : "target"));
      target.put("parents", parents);
    }
    if (spec.slo() != null) {
      target.put("slo", spec.slo().toPlainString() + "%");
      target.put("sloWindow", spec.sloWindowDays() + "d");
    }
    // Checks beyond the status code, as written; inline header values are never shown.
    spec.checks()
        .redactedJson()
        .fields()
        .forEachRemaining(f -> target.put(f.getKey(), f.getValue()));
    return target;
  }

  /**
   * The URL with user info, every query value and the fragment replaced by {@code <redacted>}
   * (names of parameters with a value are kept), so credentials are never echoed: {@code
   * https://<redacted>@host/p?token=<redacted>}.
   */
  static String redacted(java.net.URI url) {
    StringBuilder text = new StringBuilder();
    text.append(url.getScheme()).append("://");
    if (url.getRawUserInfo() != null) {
      text.append(REDACTED).append('@');
    }
    text.append(url.getRawAuthority().substring(url.getRawAuthority().lastIndexOf('@') + 1));
    text.append(url.getRawPath() == null ? "" : url.getRawPath());
    if (url.getRawQuery() != null) {
      text.append('?');
      String[] pairs = url.getRawQuery().split("&", -1);
      for (int i = 0; i < pairs.length; i++) {
        int equals = pairs[i].indexOf('=');
        // A parameter without '=' may itself be the secret (?s3cr3t): nothing of it is shown.
        text.append(i == 0 ? "" : "&")
            .append(equals < 0 ? REDACTED : pairs[i].substring(0, equals) + "=" + REDACTED);
      }
    }
    if (url.getRawFragment() != null) {
      text.append('#').append(REDACTED);
    }
    return text.toString();
  }
}
