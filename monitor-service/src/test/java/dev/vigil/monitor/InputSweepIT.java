package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.kit.http.OpenApiRoute;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A sweep of hostile input over every route the OpenAPI document describes, against the real
 * database: NUL, bytes that are not UTF-8, trailing bytes after the body, duplicate keys, wrong
 * types and huge values, in every path and query parameter and in every field of every request
 * body. Every answer must be a 4xx, and every answer of the API names the field; never a 5xx, and
 * nothing hostile is stored.
 */
@ExtendWith(VigilInfraExtension.class)
class InputSweepIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = TestMonitor.TOKEN;
  private static final String HUGE = "a".repeat(100_000);

  private static final String HTTP_TARGET =
      "{\"name\":\"sweep-http\",\"type\":\"http\",\"url\":\"http://127.0.0.1:9/health\","
          + "\"method\":\"GET\",\"interval\":\"10s\",\"timeout\":\"2s\",\"connectTimeout\":\"1s\","
          + "\"acceptedStatus\":\"200-299\",\"failureThreshold\":3,\"recoveryThreshold\":1,"
          + "\"followRedirects\":false,\"enabled\":false,\"maxLatency\":\"800ms\","
          + "\"bodyContains\":\"ok\",\"remindEvery\":\"30m\"}";

  /** A valid body per route with a body; each field of it is made hostile in turn. */
  private static final Map<String, String> BASELINES =
      Map.of(
          "POST /api/services/{name}/results",
          "{\"status\":\"DOWN\",\"error\":\"exit 1\",\"startedAt\":\"2026-01-01T00:00:00Z\","
              + "\"latencyMs\":12,\"httpStatus\":500}",
          "POST /api/incidents/{id}/acknowledge",
          "{\"who\":\"alice\"}",
          "POST /api/silences",
          "{\"service\":\"sweep\",\"who\":\"alice\",\"why\":\"deploy\"," + "\"until\":\"UNTIL\"}",
          "POST /api/maintenance-windows",
          "{\"prefix\":\"sweep\",\"days\":[\"mon\"],\"start\":\"02:00\",\"length\":\"1h\","
              + "\"zone\":\"UTC\"}",
          "POST /api/targets",
          HTTP_TARGET.replace("sweep-http", "sweep-new"),
          "PUT /api/targets/{name}",
          HTTP_TARGET,
          // Valid; answered 422 (nothing matches: the sweep writes no outbox row).
          "POST /api/outbox/replay",
          "{\"service\":\"sweep\",\"fromSeq\":1,\"toSeq\":5,\"from\":\"2026-01-01T00:00:00Z\","
              + "\"to\":\"UNTIL\",\"dryRun\":true}");

  /**
   * Fields where a huge value is not refused by design: a pushed error is cut to the contract's 500
   * characters (a checker's long stack trace still records the DOWN).
   */
  private static final Set<String> CUT_NOT_REFUSED = Set.of("error");

  private MonitorService service;
  private TestDatabase db;
  private final List<String> problems = new ArrayList<>();

  @BeforeEach
  void start(TestDatabase db) throws Exception {
    this.db = db;
    service =
        MonitorService.start(
            new MonitorConfig(new Settings(TestMonitor.settings(db, null, false))));
    assertThat(
            send("POST", "/api/targets", bytes("{\"name\":\"sweep\",\"type\":\"push\"}"))
                .statusCode())
        .isEqualTo(201);
    assertThat(send("POST", "/api/targets", bytes(HTTP_TARGET)).statusCode()).isEqualTo(201);
  }

  @AfterEach
  void stop() {
    if (service != null) {
      service.close();
    }
  }

  @Test
  void everyDocumentedRouteRefusesHostileInputWithA4xxNamingTheField() throws Exception {
    JsonNode document = document();
    Set<String> swept = new TreeSet<>();
    for (Iterator<Map.Entry<String, JsonNode>> paths = document.path("paths").fields();
        paths.hasNext(); ) {
      Map.Entry<String, JsonNode> path = paths.next();
      for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
        Map.Entry<String, JsonNode> op = ops.next();
        if (op.getKey().equals("parameters")) {
          continue;
        }
        String method = op.getKey().toUpperCase();
        String route = method + " " + path.getKey();
        List<JsonNode> parameters = new ArrayList<>();
        path.getValue().path("parameters").forEach(p -> parameters.add(resolve(document, p)));
        op.getValue().path("parameters").forEach(p -> parameters.add(resolve(document, p)));
        sweepParameters(route, method, path.getKey(), parameters);
        if (op.getValue().has("requestBody")) {
          sweepBody(document, route, method, path.getKey(), op.getValue());
        }
        swept.add(route);
      }
    }
    assertThat(swept).isEqualTo(OpenApiRoute.operations(document));
    assertThat(problems).isEmpty();
    // Nothing hostile was stored: no NUL, no replacement character anywhere.
    assertThat(Tables.snapshot(db.dataSource()).toString())
        .doesNotContain("\u0000")
        .doesNotContain("\ufffd");
  }

  private void sweepParameters(String route, String method, String path, List<JsonNode> params)
      throws Exception {
    for (JsonNode param : params) {
      String name = param.path("name").asText();
      String in = param.path("in").asText();
      if (!in.equals("path") && !in.equals("query")) {
        continue;
      }
      String type = param.path("schema").path("type").asText("string");
      Map<String, String> hostile = new LinkedHashMap<>();
      hostile.put("NUL", "a%00b");
      hostile.put("invalid UTF-8", "a%FF%FEb");
      hostile.put("encoded surrogate", "a%ED%A0%80b");
      hostile.put("huge", "a".repeat(5_000));
      hostile.put("wrong type", type.equals("integer") ? "x1" : "%7B%7D");
      if (type.equals("integer")) {
        hostile.put("huge number", "99999999999999999999");
      }
      for (Map.Entry<String, String> h : hostile.entrySet()) {
        String target = filled(path, in.equals("path") ? name : null, h.getValue());
        if (in.equals("query")) {
          target = target + "?" + name + "=" + h.getValue();
        }
        HttpResponse<String> response =
            send(method, target, method.equals("GET") ? null : bytes("{}"));
        check(route + " " + in + " " + name + " " + h.getKey(), response, name, in.equals("path"));
      }
    }
  }

  private void sweepBody(JsonNode document, String route, String method, String path, JsonNode op)
      throws Exception {
    String baseline = BASELINES.get(route);
    if (baseline == null) {
      problems.add(route + ": no baseline body in the sweep; add one");
      return;
    }
    baseline = baseline.replace("UNTIL", Instant.now().plus(Duration.ofDays(1)).toString());
    String url = filled(path, null, null);
    // The baseline itself is valid input, so each refusal below is for what was made hostile.
    HttpResponse<String> plain = send(method, url, bytes(baseline));
    if (plain.statusCode() == 400 || plain.statusCode() >= 500) {
      problems.add(route + ": the baseline is refused: " + abbreviate(plain.body()));
    }
    ObjectNode valid = (ObjectNode) JSON.readTree(baseline);
    String first = valid.fieldNames().next();
    check(
        route + " trailing bytes",
        send(method, url, bytes(baseline + " {\"x\":1}")),
        "body",
        false);
    check(route + " trailing text", send(method, url, bytes(baseline + "x")), "body", false);
    check(
        route + " duplicate key",
        send(method, url, bytes(baseline.replaceFirst("\\{", "{\"" + first + "\":null,"))),
        first,
        false);
    check(route + " not an object", send(method, url, bytes("[" + baseline + "]")), "body", false);
    check(route + " empty", send(method, url, new byte[0]), "body", false);
    check(route + " cut short", send(method, url, bytes(baseline.substring(0, 5))), "body", false);
    Map<String, JsonNode> properties = new LinkedHashMap<>();
    collectProperties(document, op.at("/requestBody/content/application~1json/schema"), properties);
    for (Map.Entry<String, JsonNode> property : properties.entrySet()) {
      String field = property.getKey();
      if (property.getValue().path("readOnly").asBoolean() || !valid.has(field)) {
        continue;
      }
      String type = property.getValue().path("type").asText("string");
      Map<String, JsonNode> values = new LinkedHashMap<>();
      if (type.equals("string")) {
        values.put("NUL", JsonNodeFactory.instance.textNode("a\u0000b"));
        values.put("escape", JsonNodeFactory.instance.textNode("a\u001b[31mb"));
        values.put("lone surrogate", JsonNodeFactory.instance.textNode("a\ud800b"));
        values.put("wrong type", JSON.readTree("{\"x\":1}"));
        if (!CUT_NOT_REFUSED.contains(field)) {
          values.put("huge", JsonNodeFactory.instance.textNode(HUGE));
        }
      } else if (type.equals("integer")) {
        values.put("wrong type", JsonNodeFactory.instance.textNode("12"));
        values.put("fraction", JSON.readTree("1.5"));
        values.put("huge", JSON.readTree("99999999999999999999"));
        values.put("huge negative", JSON.readTree("-99999999999999999999"));
      } else {
        values.put("wrong type", JsonNodeFactory.instance.textNode("x"));
        values.put("huge", JsonNodeFactory.instance.textNode(HUGE));
      }
      for (Map.Entry<String, JsonNode> v : values.entrySet()) {
        ObjectNode body = valid.deepCopy();
        body.set(field, v.getValue());
        check(
            route + " " + field + " " + v.getKey(),
            send(method, url, JSON.writeValueAsBytes(body)),
            field,
            false);
      }
      if (type.equals("string")) {
        ObjectNode body = valid.deepCopy();
        body.put(field, "INVALID");
        byte[] bad = JSON.writeValueAsBytes(body);
        // raw bytes that are not UTF-8 in place of the value
        String text = new String(bad, StandardCharsets.UTF_8);
        int at = text.indexOf("\"INVALID\"");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(bytes(text.substring(0, at + 1)));
        out.write(new byte[] {'a', (byte) 0xff, (byte) 0xfe, 'b'});
        out.write(bytes(text.substring(at + 8)));
        check(
            route + " " + field + " invalid UTF-8",
            send(method, url, out.toByteArray()),
            field,
            false);
      }
    }
  }

  private void check(
      String what, HttpResponse<String> response, String field, boolean beforeRouting) {
    int status = response.statusCode();
    if (status < 400 || status > 499) {
      problems.add(what + ": " + status + " " + abbreviate(response.body()));
      return;
    }
    String body = response.body();
    if (body.startsWith("{")) {
      try {
        String named = JSON.readTree(body).path("field").asText();
        if (!named.equals(field)
            && !named.startsWith(field + ".")
            && !named.startsWith(field + "[")) {
          problems.add(
              what + ": named '" + named + "', expected '" + field + "': " + abbreviate(body));
        }
      } catch (Exception e) {
        problems.add(what + ": unreadable answer " + abbreviate(body));
      }
    } else if (!beforeRouting && !body.contains(field)) {
      problems.add(what + ": answer does not name '" + field + "': " + abbreviate(body));
    }
  }

  private static String abbreviate(String text) {
    return text.length() > 300 ? text.substring(0, 300) + "…" : text;
  }

  /**
   * {@code path} with its parameters filled with valid values, {@code hostileParam} with {@code
   * value}.
   */
  private static String filled(String path, String hostileParam, String value) {
    String out = path;
    for (String[] pv :
        new String[][] {
          {"name", path.startsWith("/api/targets") ? "sweep-http" : "sweep"},
          {"id", "00000000-0000-0000-0000-000000000001"},
          {"file", "status.css"}
        }) {
      out = out.replace("{" + pv[0] + "}", pv[0].equals(hostileParam) ? value : pv[1]);
    }
    return out;
  }

  private static void collectProperties(
      JsonNode document, JsonNode schema, Map<String, JsonNode> out) {
    JsonNode resolved = resolve(document, schema);
    resolved.path("properties").fields().forEachRemaining(f -> out.put(f.getKey(), f.getValue()));
    resolved.path("allOf").forEach(part -> collectProperties(document, part, out));
  }

  private static JsonNode resolve(JsonNode document, JsonNode node) {
    while (node.has("$ref")) {
      node = document.at(node.get("$ref").asText().substring(1));
    }
    return node;
  }

  private HttpResponse<String> send(String method, String path, byte[] body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.httpPort() + path))
            .header("Authorization", "Bearer " + TOKEN)
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    // A fresh client each time: the server closes the connection after some refusals.
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static JsonNode document() throws Exception {
    try (InputStream in =
        dev.vigil.monitor.api.HttpApi.class.getResourceAsStream(OpenApiRoute.RESOURCE)) {
      return new ObjectMapper(new YAMLFactory()).readTree(in);
    }
  }
}
