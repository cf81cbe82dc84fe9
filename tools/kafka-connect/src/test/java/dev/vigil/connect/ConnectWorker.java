package dev.vigil.connect;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;

/**
 * A Kafka Connect worker in distributed mode, in this JVM, with a REST API on 127.0.0.1: the same
 * runtime ({@code connect-distributed.sh}) the worker image runs, started from the shipped worker
 * properties.
 */
final class ConnectWorker implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final Connect<?> connect;
  private final URI rest;

  private ConnectWorker(Connect<?> connect) {
    this.connect = connect;
    this.rest = connect.rest().serverUrl();
  }

  /** Starts a worker from filled worker properties (the text of a properties file). */
  static ConnectWorker start(String workerProperties) {
    Properties properties = new Properties();
    try {
      properties.load(new StringReader(workerProperties));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read worker properties", e);
    }
    Map<String, String> config = new HashMap<>();
    properties.stringPropertyNames().forEach(k -> config.put(k, properties.getProperty(k)));
    return new ConnectWorker(new ConnectDistributed().startConnect(config));
  }

  /**
   * Creates or updates the connector described by {@code connectorJson} ({@code {"name": ...,
   * "config": {...}}}) with {@code PUT /connectors/<name>/config}, retrying while the worker is
   * still joining its group, and returns its name.
   */
  String put(String connectorJson) throws IOException {
    JsonNode connector = JSON.readTree(connectorJson);
    String name = connector.path("name").asText();
    String body = JSON.writeValueAsString(connector.path("config"));
    // 200 when an existing connector's config is replaced, 201 when it is created.
    retry(
        "connector " + name + " accepted",
        withJson(HttpRequest.newBuilder(connectorUri(name, "/config")), body, "PUT"),
        Set.of(200, 201));
    return name;
  }

  /**
   * Creates the connector described by {@code connectorJson} in the STOPPED state (KIP-980), so its
   * offsets can be set before it reads anything; returns its name.
   */
  String createStopped(String connectorJson) throws IOException {
    ObjectNode connector = (ObjectNode) JSON.readTree(connectorJson);
    connector.put("initial_state", "STOPPED");
    String body = JSON.writeValueAsString(connector);
    retry(
        "connector created stopped",
        withJson(HttpRequest.newBuilder(rest.resolve("/connectors")), body, "POST"),
        Set.of(201));
    return connector.path("name").asText();
  }

  /**
   * Sets the stopped connector's offsets (KIP-875, {@code PATCH /connectors/<name>/offsets}) to
   * {@code offset} for the source partition {@code partition}.
   */
  void setOffsets(String name, JsonNode partition, JsonNode offset) throws IOException {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode entry = body.putArray("offsets").addObject();
    entry.set("partition", partition);
    entry.set("offset", offset);
    retry(
        "offsets of " + name + " set",
        withJson(
            HttpRequest.newBuilder(connectorUri(name, "/offsets")),
            JSON.writeValueAsString(body),
            "PATCH"),
        Set.of(200));
  }

  /** Starts a stopped connector. */
  void resume(String name) {
    retry(
        "connector " + name + " resumed",
        HttpRequest.newBuilder(connectorUri(name, "/resume"))
            .PUT(HttpRequest.BodyPublishers.noBody()),
        Set.of(202));
  }

  private URI connectorUri(String name, String suffix) {
    return rest.resolve("/connectors/" + URLEncoder.encode(name, StandardCharsets.UTF_8) + suffix);
  }

  private static HttpRequest.Builder withJson(
      HttpRequest.Builder request, String body, String method) {
    return request
        .header("Content-Type", "application/json")
        .method(method, HttpRequest.BodyPublishers.ofString(body));
  }

  /**
   * Sends {@code request} until the worker answers one of {@code expected}; 409 (the worker is
   * joining its group or rebalancing) is retried, any other answer fails with the worker's reason.
   */
  private static void retry(String alias, HttpRequest.Builder request, Set<Integer> expected) {
    await(alias)
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              HttpResponse<String> response = send(request);
              if (expected.contains(response.statusCode())) {
                return true;
              }
              if (response.statusCode() == 409) {
                return false;
              }
              throw new AssertionError(
                  alias
                      + ": worker answered "
                      + response.statusCode()
                      + " (expected "
                      + expected
                      + "): "
                      + response.body());
            });
  }

  /** Waits until the connector and its task run; fails at once with the trace if either failed. */
  void awaitRunning(String name) {
    URI uri = connectorUri(name, "/status");
    await("connector " + name + " running")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              HttpResponse<String> response = send(HttpRequest.newBuilder(uri).GET());
              if (response.statusCode() != 200) {
                return false;
              }
              String body = response.body();
              if (body.contains("\"FAILED\"")) {
                throw new AssertionError("connector " + name + " failed: " + body);
              }
              JsonNode status = JSON.readTree(body);
              JsonNode tasks = status.path("tasks");
              return "RUNNING".equals(status.path("connector").path("state").asText())
                  && tasks.size() == 1
                  && "RUNNING".equals(tasks.get(0).path("state").asText());
            });
  }

  private static HttpResponse<String> send(HttpRequest.Builder request)
      throws IOException, InterruptedException {
    return HTTP.send(
        request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() {
    connect.stop();
  }
}
