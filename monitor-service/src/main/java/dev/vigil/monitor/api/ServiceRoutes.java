package dev.vigil.monitor.api;

import dev.vigil.contract.AlertTopic;
import dev.vigil.kit.tracing.Tracing;
import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.alert.RecordOutcome;
import dev.vigil.monitor.alert.Recorder;
import dev.vigil.monitor.alert.UnknownServiceException;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Services, their history and incidents (reads), and pushed results, which go through the same
 * {@link Recorder} as scheduled probes.
 */
final class ServiceRoutes {
  private final StatusQueries queries;
  private final TargetStore targets;
  private final Recorder recorder;
  private final Clock clock;
  private final Predicate<Context> details;
  private final Tracer tracer;

  /**
   * @param details whether a request sees DOWN reasons and who acknowledged
   */
  ServiceRoutes(
      StatusQueries queries,
      TargetStore targets,
      Recorder recorder,
      Clock clock,
      Predicate<Context> details,
      Tracer tracer) {
    this.tracer = tracer;
    this.queries = queries;
    this.targets = targets;
    this.recorder = recorder;
    this.clock = clock;
    this.details = details;
  }

  /**
   * Records {@code result} in a span of its own that continues the pusher's {@code traceparent}
   * when it is valid; an invalid or missing one starts a new trace and never refuses the result.
   */
  private RecordOutcome recordTraced(Context ctx, ProbeResult result) {
    Span span =
        tracer
            .spanBuilder("push")
            .setParent(Tracing.parent(ctx.header(AlertTopic.HEADER_TRACEPARENT)))
            .setSpanKind(SpanKind.SERVER)
            .setAttribute("vigil.service", result.service())
            .setAttribute("vigil.status", result.status().name())
            .startSpan();
    try (Scope ignored = span.makeCurrent()) {
      RecordOutcome outcome =
          recorder.record(result.tracedBy(Tracing.traceParent(span).orElse(null)));
      span.setAttribute("vigil.accepted", outcome.accepted());
      return outcome;
    } catch (RuntimeException e) {
      span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
      throw e;
    } finally {
      span.end();
    }
  }

  /** Default and largest page of {@code GET /api/services}. */
  static final int SERVICES_PAGE = 100;

  static final int SERVICES_MAX = 1000;

  void register(RoutesConfig routes) {
    routes.get("/api/services", this::services);
    routes.get(
        "/api/services/{name}",
        ctx -> Http.json(ctx, 200, redactService(service(ctx), details.test(ctx))));
    routes.get("/api/services/{name}/history", this::history);
    routes.post("/api/services/{name}/results", this::push);
    routes.get("/api/incidents", this::incidents);
  }

  private void services(Context ctx) {
    int limit = Http.intParam(ctx, "limit", SERVICES_PAGE, 1, SERVICES_MAX);
    String after = ctx.queryParam("after");
    if (after != null) {
      after = Http.normalize(after, "after");
    }
    boolean detailed = details.test(ctx);
    List<Map<String, Object>> page = queries.services(after, limit);
    page.forEach(service -> redactService(service, detailed));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("services", page);
    body.put("nextAfter", page.size() == limit ? page.get(page.size() - 1).get("service") : null);
    Http.json(ctx, 200, body);
  }

  /** Without details, the last check loses its error (it names hosts, ports, response values). */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> redactService(Map<String, Object> service, boolean detailed) {
    if (!detailed && service.get("lastCheck") instanceof Map<?, ?> last) {
      ((Map<String, Object>) last).remove("error");
    }
    if (!detailed && service.get("locations") instanceof List<?> locations) {
      locations.forEach(l -> ((Map<String, Object>) l).remove("lastError"));
    }
    return service;
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
    if (!details.test(ctx)) {
      items.forEach(item -> item.remove("error"));
    }
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
    List<Map<String, Object>> incidents = queries.incidents(service, state, limit);
    if (!details.test(ctx)) {
      for (Map<String, Object> incident : incidents) {
        incident.remove("firstError");
        incident.remove("lastError");
        incident.remove("acknowledgedBy");
      }
    }
    Http.json(ctx, 200, Map.of("incidents", incidents));
  }

  private void push(Context ctx) {
    String name = Http.name(ctx);
    TargetSpec target = targets.find(name).orElseThrow(() -> new UnknownServiceException(name));
    // A target probed from several locations takes pushed results as one more location each (a
    // remote checker); one probed from one place takes none.
    if (target.kind() != TargetKind.PUSH && !target.located()) {
      throw new ApiException(
          409, "name", "'" + name + "' is probed by the monitor, not a push target");
    }
    if (!target.enabled()) {
      throw new ApiException(409, "name", "target '" + name + "' is disabled");
    }
    ProbeResult result = PushRequests.parse(name, Http.body(ctx), clock.instant());
    if (target.located() && result.location() == null) {
      throw ApiException.badRequest(
          "location", "is required: '" + name + "' is probed from several locations");
    }
    if (!target.located() && result.location() != null) {
      throw ApiException.badRequest(
          "location", "'" + name + "' lists no locations, so a result names none");
    }
    RecordOutcome outcome = recordTraced(ctx, result);
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
