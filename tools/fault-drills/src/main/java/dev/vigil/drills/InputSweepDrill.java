package dev.vigil.drills;

import dev.vigil.drills.stack.ServiceProcess;
import dev.vigil.drills.stack.Stack;
import dev.vigil.harness.sweep.MonitorApiSweep;
import dev.vigil.harness.sweep.OpenApiSweep;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The bad-input-sweep drill: {@link OpenApiSweep} over every route of the running monitor's and
 * notifier's OpenAPI documents, and the reference receiver's documented routes (its README: {@code
 * GET /received}, {@code POST /_faults}, the webhook), while the workload flows. Every answer must
 * be a 4xx (the monitor's and notifier's JSON answers naming the field); the reconciliation then
 * shows that the flow lost nothing.
 */
final class InputSweepDrill {
  static final String NAME = "bad-input-sweep";

  private static final Duration STARTUP = Duration.ofMinutes(5);
  private static final String OPERATOR = "drill-sweep";

  private InputSweepDrill() {}

  /** One relay, and the monitor with the targets the sweep needs (a later run finds them: 409). */
  static void prepare(DrillContext ctx) {
    Drills.relays(ctx, 1);
    ServiceProcess monitor = ctx.stack.startMonitor();
    Stack.awaitHealthy(monitor, STARTUP);
    OpenApiSweep.Sender sender = monitorSender(ctx, monitor);
    for (String target : List.of(MonitorApiSweep.PUSH_TARGET, MonitorApiSweep.HTTP_TARGET)) {
      int status;
      try {
        status =
            sender
                .send("POST", "/api/targets", target.getBytes(StandardCharsets.UTF_8))
                .statusCode();
      } catch (IOException e) {
        throw new IllegalStateException("the monitor did not answer", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
      if (status != 201 && status != 409) {
        throw new IllegalStateException("cannot create the sweep's target: " + status);
      }
    }
  }

  static void sweep(DrillContext ctx) {
    ctx.awaitProgressThenPause(
        "receiver", ctx.watch::receiverDistinct, ctx.watch.receiverDistinct());
    long at = System.nanoTime();
    Map<String, OpenApiSweep.Outcome> outcomes = new LinkedHashMap<>();
    ServiceProcess monitor = ctx.stack.startMonitor();
    outcomes.put(
        "monitor API",
        MonitorApiSweep.of(
                document("dev/vigil/monitor/api/openapi.yaml"), monitorSender(ctx, monitor))
            .run());
    ServiceProcess notifier = ctx.stack.notifiers().getFirst();
    outcomes.put(
        "notifier admin API",
        new OpenApiSweep(
                document("dev/vigil/notifier/api/openapi.yaml"),
                OpenApiSweep.http(
                    base(notifier),
                    Map.of(
                        "Authorization",
                        "Bearer " + ctx.stack.apiToken(),
                        "X-Vigil-Operator",
                        OPERATOR)),
                Map.of(),
                (path, parameter) ->
                    parameter.equals("eventId")
                        ? "00000000-0000-0000-0000-000000000001"
                        : parameter,
                Set.of())
            .run());
    outcomes.put("receiver", receiverSweep(ctx.stack.receiverBaseUrl()));
    long done = System.nanoTime();

    int requests = 0;
    int routes = 0;
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, OpenApiSweep.Outcome> entry : outcomes.entrySet()) {
      OpenApiSweep.Outcome outcome = entry.getValue();
      requests += outcome.requests();
      routes += outcome.swept().size();
      ctx.note(
          "%s: %d routes, %d requests (hostile ones, and each valid body once), answers by status %s, %d hostile ones not a 4xx naming the field%s"
              .formatted(
                  entry.getKey(),
                  outcome.swept().size(),
                  outcome.requests(),
                  outcome.statuses(),
                  outcome.problems().size(),
                  outcome.problems().isEmpty()
                      ? ""
                      : ": "
                          + outcome.problems().subList(0, Math.min(5, outcome.problems().size()))));
      outcome.problems().forEach(p -> problems.add(entry.getKey() + ": " + p));
    }
    ctx.record(
        requests + " hostile requests to " + routes + " routes (monitor, notifier, receiver)",
        at,
        done,
        -1);
    Drills.awaitAllHealthy(ctx.stack.notifiers());
    if (!problems.isEmpty()) {
      throw new IllegalStateException(
          problems.size()
              + " answers were not a 4xx naming the field, e.g. "
              + problems.getFirst());
    }
  }

  /**
   * The receiver's routes as its README documents them: {@code GET /received} (service, after,
   * limit; unknown or repeated parameters), {@code POST /_faults} (a fault rule as text) and the
   * webhook (unsigned or hostile bodies). Each answer must be a 4xx.
   */
  private static OpenApiSweep.Outcome receiverSweep(String baseUrl) {
    OpenApiSweep.Sender sender = OpenApiSweep.http(baseUrl, Map.of());
    Map<String, byte[]> requests = new LinkedHashMap<>();
    for (String parameter : List.of("service", "after", "limit")) {
      Map<String, String> values = new LinkedHashMap<>(OpenApiSweep.HOSTILE_PARAMETERS);
      if (parameter.equals("service")) {
        values.put("wrong shape", "%7B%7D");
      } else {
        values.put("wrong type", "x1");
        values.put("huge number", "99999999999999999999");
      }
      values.forEach(
          (what, value) -> requests.put("GET /received?" + parameter + "=" + value, null));
    }
    requests.put("GET /received?unknown=1", null);
    requests.put("GET /received?limit=1&limit=2", null);
    requests.put("GET /received?limit=0", null);
    requests.put("GET /received?limit=1001", null);
    Map<String, byte[]> bodies = new LinkedHashMap<>();
    bodies.put("NUL", "status=503 times=1 service=a\u0000b".getBytes(StandardCharsets.UTF_8));
    bodies.put("invalid UTF-8", new byte[] {'s', 't', (byte) 0xff, (byte) 0xfe});
    bodies.put("unknown rule", "explode=yes".getBytes(StandardCharsets.UTF_8));
    bodies.put("status out of range", "status=999 times=1".getBytes(StandardCharsets.UTF_8));
    bodies.put("huge", "x".repeat(2_000_000).getBytes(StandardCharsets.UTF_8));
    bodies.forEach((what, body) -> requests.put("POST /_faults#" + what, body));
    Map<String, byte[]> webhooks = new LinkedHashMap<>();
    webhooks.put("not JSON", "not json".getBytes(StandardCharsets.UTF_8));
    webhooks.put("NUL", "{\"eventId\":\"a\u0000b\"}".getBytes(StandardCharsets.UTF_8));
    webhooks.put("invalid UTF-8", new byte[] {'{', (byte) 0xff, '}'});
    webhooks.put("huge", "{\"x\":\"".concat("a".repeat(2_000_000)).concat("\"}").getBytes());
    webhooks.forEach(
        (what, body) -> requests.put("POST " + Stack.RECEIVER_WEBHOOK_PATH + "#" + what, body));

    List<String> problems = new ArrayList<>();
    Map<Integer, Integer> statuses = new TreeMap<>();
    Set<String> routes = new java.util.TreeSet<>();
    for (Map.Entry<String, byte[]> request : requests.entrySet()) {
      String line = request.getKey();
      String method = line.substring(0, line.indexOf(' '));
      String target = line.substring(line.indexOf(' ') + 1).replaceFirst("#.*$", "");
      routes.add(method + " " + target.replaceFirst("\\?.*$", ""));
      try {
        HttpResponse<String> response =
            sender.send(method, target, method.equals("GET") ? null : request.getValue());
        statuses.merge(response.statusCode(), 1, Integer::sum);
        if (response.statusCode() < 400 || response.statusCode() > 499) {
          problems.add(line + ": " + response.statusCode() + " " + abbreviate(response.body()));
        }
      } catch (IOException e) {
        problems.add(line + ": no answer: " + e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    return new OpenApiSweep.Outcome(routes, problems, requests.size(), statuses);
  }

  private static String abbreviate(String text) {
    return text.length() > 200 ? text.substring(0, 200) + "…" : text;
  }

  private static OpenApiSweep.Sender monitorSender(DrillContext ctx, ServiceProcess monitor) {
    return OpenApiSweep.http(
        base(monitor), Map.of("Authorization", "Bearer " + ctx.stack.apiToken()));
  }

  private static String base(ServiceProcess process) {
    return "http://127.0.0.1:" + process.httpPort();
  }

  private static com.fasterxml.jackson.databind.JsonNode document(String resource) {
    InputStream in = InputSweepDrill.class.getClassLoader().getResourceAsStream(resource);
    if (in == null) {
      throw new IllegalStateException(resource + " is not on the class path");
    }
    return OpenApiSweep.document(in);
  }
}
