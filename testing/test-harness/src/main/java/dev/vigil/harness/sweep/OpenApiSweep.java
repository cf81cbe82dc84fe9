package dev.vigil.harness.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Sends hostile input to every route an OpenAPI document describes: NUL, bytes that are not UTF-8,
 * encoded surrogates, huge and wrong-typed values in every path and query parameter; trailing
 * bytes, duplicate keys, wrong shapes and, in every field, NUL, escapes, lone surrogates, wrong
 * types, huge values and raw invalid UTF-8 in every request body. Every answer must be a 4xx, and
 * an answer in JSON must name the field ({@code "field"}); anything else is a problem. Never throws
 * for what the server answers.
 */
public final class OpenApiSweep {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String HUGE = "a".repeat(100_000);

  /** Hostile values of a path or query parameter, already URL-encoded, by what they are. */
  public static final Map<String, String> HOSTILE_PARAMETERS = hostileParameters();

  /** Sends one request; {@code target} is the path with its query. */
  @FunctionalInterface
  public interface Sender {
    HttpResponse<String> send(String method, String target, byte[] body)
        throws IOException, InterruptedException;
  }

  /** A valid value of a path parameter of a path ({@code name} of {@code /api/targets/{name}}). */
  @FunctionalInterface
  public interface PathValues {
    String valid(String path, String parameter);
  }

  /**
   * What the sweep did.
   *
   * @param swept the routes ({@code METHOD /path}) swept
   * @param problems every answer that was not a 4xx naming the field, one line each
   * @param requests requests sent
   * @param statuses how many answers had each status
   */
  public record Outcome(
      Set<String> swept, List<String> problems, int requests, Map<Integer, Integer> statuses) {

    /** Answers with a 5xx status. */
    public int serverErrors() {
      return statuses.entrySet().stream()
          .filter(e -> e.getKey() >= 500)
          .mapToInt(Map.Entry::getValue)
          .sum();
    }
  }

  private final JsonNode document;
  private final Sender sender;
  private final Map<String, String> baselines;
  private final PathValues pathValues;
  private final Set<String> cutNotRefused;
  private final Set<String> swept = new TreeSet<>();
  private final List<String> problems = new ArrayList<>();
  private final Map<Integer, Integer> statuses = new TreeMap<>();
  private int requests;

  /**
   * @param document the OpenAPI document ({@link #document(InputStream)})
   * @param baselines a valid body per route with a body ({@code POST /api/silences}); each field of
   *     it is made hostile in turn, and the baseline itself is sent once (it must be accepted)
   * @param pathValues valid values of path parameters
   * @param cutNotRefused body fields where a huge string is not refused by design (cut instead)
   */
  public OpenApiSweep(
      JsonNode document,
      Sender sender,
      Map<String, String> baselines,
      PathValues pathValues,
      Set<String> cutNotRefused) {
    this.document = document;
    this.sender = sender;
    this.baselines = Map.copyOf(baselines);
    this.pathValues = pathValues;
    this.cutNotRefused = Set.copyOf(cutNotRefused);
  }

  /** Reads an OpenAPI document in YAML. */
  public static JsonNode document(InputStream yaml) {
    try (yaml) {
      return new ObjectMapper(new YAMLFactory()).readTree(yaml);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the OpenAPI document", e);
    }
  }

  /**
   * A sender to {@code baseUrl} with {@code headers} on every request (a bearer token, an operator
   * name) and a JSON content type; a fresh client each time, since a server may close the
   * connection after a request it refuses.
   */
  public static Sender http(String baseUrl, Map<String, String> headers) {
    return (method, target, body) -> {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(URI.create(baseUrl + target))
              .header("Content-Type", "application/json")
              .method(
                  method,
                  body == null
                      ? HttpRequest.BodyPublishers.noBody()
                      : HttpRequest.BodyPublishers.ofByteArray(body));
      headers.forEach(request::header);
      try (HttpClient http = HttpClient.newHttpClient()) {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      }
    };
  }

  /** Sweeps every operation of the document. */
  public Outcome run() {
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
        path.getValue().path("parameters").forEach(p -> parameters.add(resolve(p)));
        op.getValue().path("parameters").forEach(p -> parameters.add(resolve(p)));
        try {
          sweepParameters(route, method, path.getKey(), parameters);
          if (op.getValue().has("requestBody")) {
            sweepBody(route, method, path.getKey(), op.getValue());
          }
        } catch (IOException e) {
          problems.add(route + ": no answer: " + e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          problems.add(route + ": interrupted");
          break;
        }
        swept.add(route);
      }
    }
    return new Outcome(Set.copyOf(swept), List.copyOf(problems), requests, Map.copyOf(statuses));
  }

  private void sweepParameters(String route, String method, String path, List<JsonNode> params)
      throws IOException, InterruptedException {
    for (JsonNode param : params) {
      String name = param.path("name").asText();
      String in = param.path("in").asText();
      if (!in.equals("path") && !in.equals("query")) {
        continue;
      }
      String type = param.path("schema").path("type").asText("string");
      Map<String, String> hostile = new LinkedHashMap<>(HOSTILE_PARAMETERS);
      hostile.put("wrong type", type.equals("integer") ? "x1" : "%7B%7D");
      if (type.equals("integer")) {
        hostile.put("huge number", "99999999999999999999");
      }
      for (Map.Entry<String, String> h : hostile.entrySet()) {
        String target = filled(path, in.equals("path") ? name : null, h.getValue());
        if (in.equals("query")) {
          target = target + "?" + name + "=" + h.getValue();
        }
        HttpResponse<String> response = send(method, target, method.equals("GET") ? null : "{}");
        check(route + " " + in + " " + name + " " + h.getKey(), response, name, in.equals("path"));
      }
    }
  }

  private void sweepBody(String route, String method, String path, JsonNode op)
      throws IOException, InterruptedException {
    String baseline = baselines.get(route);
    if (baseline == null) {
      problems.add(route + ": no baseline body in the sweep; add one");
      return;
    }
    String url = filled(path, null, null);
    // The baseline itself is valid input, so each refusal below is for what was made hostile.
    HttpResponse<String> plain = send(method, url, baseline);
    if (plain.statusCode() == 400 || plain.statusCode() >= 500) {
      problems.add(route + ": the baseline is refused: " + abbreviate(plain.body()));
    }
    ObjectNode valid = (ObjectNode) JSON.readTree(baseline);
    String first = valid.fieldNames().next();
    check(route + " trailing bytes", send(method, url, baseline + " {\"x\":1}"), "body", false);
    check(route + " trailing text", send(method, url, baseline + "x"), "body", false);
    check(
        route + " duplicate key",
        send(method, url, baseline.replaceFirst("\\{", "{\"" + first + "\":null,")),
        first,
        false);
    check(route + " not an object", send(method, url, "[" + baseline + "]"), "body", false);
    check(route + " empty", send(method, url, ""), "body", false);
    check(route + " cut short", send(method, url, baseline.substring(0, 5)), "body", false);
    Map<String, JsonNode> properties = new LinkedHashMap<>();
    collectProperties(op.at("/requestBody/content/application~1json/schema"), properties);
    for (Map.Entry<String, JsonNode> property : properties.entrySet()) {
      String field = property.getKey();
      if (property.getValue().path("readOnly").asBoolean() || !valid.has(field)) {
        continue;
      }
      String type = property.getValue().path("type").asText("string");
      for (Map.Entry<String, JsonNode> v : hostileValues(field, type).entrySet()) {
        ObjectNode body = valid.deepCopy();
        body.set(field, v.getValue());
        check(
            route + " " + field + " " + v.getKey(),
            send(method, url, JSON.writeValueAsBytes(body)),
            field,
            false);
      }
      if (type.equals("string")) {
        check(
            route + " " + field + " invalid UTF-8",
            send(method, url, withInvalidUtf8(valid, field)),
            field,
            false);
      }
    }
  }

  private Map<String, JsonNode> hostileValues(String field, String type) throws IOException {
    Map<String, JsonNode> values = new LinkedHashMap<>();
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    if (type.equals("string")) {
      values.put("NUL", nodes.textNode("a\u0000b"));
      values.put("escape", nodes.textNode("a\u001b[31mb"));
      values.put("lone surrogate", nodes.textNode("a\ud800b"));
      values.put("wrong type", JSON.readTree("{\"x\":1}"));
      if (!cutNotRefused.contains(field)) {
        values.put("huge", nodes.textNode(HUGE));
      }
    } else if (type.equals("integer")) {
      values.put("wrong type", nodes.textNode("12"));
      values.put("fraction", JSON.readTree("1.5"));
      values.put("huge", JSON.readTree("99999999999999999999"));
      values.put("huge negative", JSON.readTree("-99999999999999999999"));
    } else {
      values.put("wrong type", nodes.textNode("x"));
      values.put("huge", nodes.textNode(HUGE));
    }
    return values;
  }

  /** The body with raw bytes that are not UTF-8 in place of {@code field}'s value. */
  private static byte[] withInvalidUtf8(ObjectNode valid, String field) throws IOException {
    ObjectNode body = valid.deepCopy();
    body.put(field, "INVALID");
    String text = new String(JSON.writeValueAsBytes(body), StandardCharsets.UTF_8);
    int at = text.indexOf("\"INVALID\"");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(text.substring(0, at + 1).getBytes(StandardCharsets.UTF_8));
    out.write(new byte[] {'a', (byte) 0xff, (byte) 0xfe, 'b'});
    out.write(text.substring(at + 8).getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
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
      } catch (IOException e) {
        problems.add(what + ": unreadable answer " + abbreviate(body));
      }
    } else if (!beforeRouting && !body.contains(field)) {
      problems.add(what + ": answer does not name '" + field + "': " + abbreviate(body));
    }
  }

  static String abbreviate(String text) {
    return text.length() > 300 ? text.substring(0, 300) + "…" : text;
  }

  /** {@code path} with its parameters valid, {@code hostileParam} set to {@code value}. */
  private String filled(String path, String hostileParam, String value) {
    StringBuilder out = new StringBuilder();
    int from = 0;
    for (int open = path.indexOf('{'); open >= 0; open = path.indexOf('{', from)) {
      int close = path.indexOf('}', open);
      String param = path.substring(open + 1, close);
      out.append(path, from, open);
      out.append(param.equals(hostileParam) ? value : pathValues.valid(path, param));
      from = close + 1;
    }
    return out.append(path.substring(from)).toString();
  }

  private void collectProperties(JsonNode schema, Map<String, JsonNode> out) {
    JsonNode resolved = resolve(schema);
    resolved.path("properties").fields().forEachRemaining(f -> out.put(f.getKey(), f.getValue()));
    resolved.path("allOf").forEach(part -> collectProperties(part, out));
  }

  private JsonNode resolve(JsonNode node) {
    while (node.has("$ref")) {
      node = document.at(node.get("$ref").asText().substring(1));
    }
    return node;
  }

  private HttpResponse<String> send(String method, String target, String body)
      throws IOException, InterruptedException {
    return send(method, target, body == null ? null : body.getBytes(StandardCharsets.UTF_8));
  }

  private HttpResponse<String> send(String method, String target, byte[] body)
      throws IOException, InterruptedException {
    HttpResponse<String> response = sender.send(method, target, body);
    requests++;
    statuses.merge(response.statusCode(), 1, Integer::sum);
    return response;
  }

  private static Map<String, String> hostileParameters() {
    Map<String, String> hostile = new LinkedHashMap<>();
    hostile.put("NUL", "a%00b");
    hostile.put("invalid UTF-8", "a%FF%FEb");
    hostile.put("encoded surrogate", "a%ED%A0%80b");
    hostile.put("control character", "a%1Bb");
    hostile.put("huge", "a".repeat(5_000));
    return java.util.Collections.unmodifiableMap(hostile);
  }
}
