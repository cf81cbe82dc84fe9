package dev.vigil.monitor.api;

import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.alert.RecordOutcome;
import dev.vigil.monitor.alert.Recorder;
import dev.vigil.monitor.alert.UnknownServiceException;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Services, their history and incidents (reads), and pushed results, which go through the same
 * {@link Recorder} as scheduled probes.
 */
final class ServiceRoutes {
  private final StatusQueries queries;
  private final TargetStore targets;
  private final Recorder recorder;
  private final Clock clock;

  ServiceRoutes(StatusQueries queries, TargetStore targets, Recorder recorder, Clock clock) {
    this.queries = queries;
    this.targets = targets;
    this.recorder = recorder;
    this.clock = clock;
  }

  void register(RoutesConfig routes) {
    routes.get(
        "/api/services", ctx -> Http.json(ctx, 200, Map.of("services", queries.services(null))));
    routes.get("/api/services/{name}", ctx -> Http.json(ctx, 200, service(ctx)));
    routes.get("/api/services/{name}/history", this::history);
    routes.post("/api/services/{name}/results", this::push);
    routes.get("/api/incidents", this::incidents);
  }

  private Map<String, Object> service(Context ctx) {
    String name = Http.name(ctx);
    List<Map<String, Object>> found = queries.services(name);
    if (found.isEmpty()) {
      throw new UnknownServiceException(name);
    }
    return found.get(0);
  }

  private void history(Context ctx) {
    String name = service(ctx).get("service").toString();
    int limit = Http.intParam(ctx, "limit", 50, 1, 500);
    String beforeRaw = ctx.queryParam("before");
    Long before =
        beforeRaw == null ? null : (long) Http.intParam(ctx, "before", 0, 0, Integer.MAX_VALUE);
    List<Map<String, Object>> items = queries.history(name, before, limit);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("service", name);
    body.put("items", items);
    body.put("nextBefore", items.size() == limit ? items.get(items.size() - 1).get("id") : null);
    Http.json(ctx, 200, body);
  }

  private void incidents(Context ctx) {
    String state = ctx.queryParam("state") == null ? "all" : ctx.queryParam("state");
    if (!Set.of("open", "closed", "all").contains(state)) {
      throw ApiException.badRequest("state", "must be open, closed or all");
    }
    String service = ctx.queryParam("service");
    if (service != null) {
      service = Http.normalize(service, "service");
    }
    int limit = Http.intParam(ctx, "limit", 100, 1, 1000);
    Http.json(ctx, 200, Map.of("incidents", queries.incidents(service, state, limit)));
  }

  private void push(Context ctx) {
    String name = Http.name(ctx);
    TargetSpec target = targets.find(name).orElseThrow(() -> new UnknownServiceException(name));
    if (target.kind() != TargetKind.PUSH) {
      throw new ApiException(
          409, "name", "'" + name + "' is probed by the monitor, not a push target");
    }
    if (!target.enabled()) {
      throw new ApiException(409, "name", "target '" + name + "' is disabled");
    }
    ProbeResult result = PushRequests.parse(name, Http.body(ctx), clock.instant());
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
    Http.json(ctx, 200, body);
  }
}
