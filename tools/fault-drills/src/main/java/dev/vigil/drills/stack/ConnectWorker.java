package dev.vigil.drills.stack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.harness.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka Connect deployment of the outbox routing as the drills run it: a {@code
 * ConnectDistributed} worker as its own OS process (so it can be killed with SIGKILL), started from
 * the shipped {@code connect-distributed.properties} and running the shipped {@code
 * vigil-outbox-connector.json}, both with their {@code ${VIGIL_*}} placeholders filled for the
 * drill's broker and database and nothing else changed (the recovery settings a killed worker's
 * task needs are the shipped ones). The worker's class path is the drill's own ({@code lib/},
 * assembled at package time): connect-runtime plus the Debezium PostgreSQL connector.
 */
public final class ConnectWorker {
  /** The connector's name; its records go to the stack's alert topic. */
  public static final String CONNECTOR = "vigil-drill-connect";

  static final String MAIN = "org.apache.kafka.connect.cli.ConnectDistributed";
  static final String SLOT = "vigil_drill_connect";

  /** The worker's logging: the drills' levels plus its recovery timeline at INFO. */
  static final String LOGBACK = "logback-connect-worker.xml";

  private static final Logger LOG = LoggerFactory.getLogger(ConnectWorker.class);
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(VIGIL_[A-Z0-9_]+)}");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final ServiceProcess process;
  private final String connectorJson;

  private ConnectWorker(ServiceProcess process, String connectorJson) {
    this.process = process;
    this.connectorJson = connectorJson;
  }

  /** Writes the worker's files under {@code dir} and creates (does not start) its process. */
  static ConnectWorker create(Infra infra, StackOptions options, Path dir) {
    int port = FreePorts.pick();
    Map<String, String> values = values(infra, options, dir, port);
    Path properties = dir.resolve("connect-distributed.properties");
    try {
      Files.writeString(
          properties, fill(resource("worker/connect-distributed.properties"), values));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + properties, e);
    }
    List<String> jvm = new ArrayList<>(options.jvmOptions());
    jvm.add("-Xmx512m");
    // Later than the drills' own logging configuration, so it wins: the worker's timeline at INFO.
    jvm.add("-Dlogback.configurationFile=" + LOGBACK);
    ServiceProcess process =
        new ServiceProcess(
            "connect-worker",
            MAIN,
            List.of(properties.toAbsolutePath().toString()),
            Map.of(),
            port,
            options.logDir(),
            jvm);
    return new ConnectWorker(
        process, fill(resource("connector/vigil-outbox-connector.json"), values));
  }

  private static Map<String, String> values(Infra infra, StackOptions options, Path dir, int port) {
    URI db = URI.create(infra.jdbcUrl(Infra.VIGIL_DB).substring("jdbc:".length()));
    Path secrets = dir.resolve("secrets");
    Path plugins = dir.resolve("plugins");
    try {
      Files.createDirectories(secrets);
      Files.createDirectories(plugins);
      // The drill's PostgreSQL trusts local connections: the password file is empty.
      Files.writeString(secrets.resolve("db_password"), "");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare " + dir, e);
    }
    Map<String, String> v = new HashMap<>();
    v.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", infra.bootstrapServers());
    v.put("VIGIL_CONNECT_GROUP_ID", "vigil-drill-connect");
    v.put("VIGIL_CONNECT_REST_HOST", "127.0.0.1");
    v.put("VIGIL_CONNECT_REST_PORT", String.valueOf(port));
    v.put("VIGIL_CONNECT_ADVERTISED_HOST", "127.0.0.1");
    v.put("VIGIL_CONNECT_REPLICATION_FACTOR", "1");
    v.put("VIGIL_CONNECT_SECRETS_DIR", secrets.toAbsolutePath().toString());
    v.put("VIGIL_CONNECT_PLUGIN_PATH", plugins.toAbsolutePath().toString());
    v.put("VIGIL_CONNECT_CONNECTOR_NAME", CONNECTOR);
    v.put("VIGIL_DB_HOST", db.getHost());
    v.put("VIGIL_DB_PORT", String.valueOf(db.getPort()));
    v.put("VIGIL_DB_NAME", db.getPath().substring(1));
    v.put("VIGIL_DB_USER", infra.dbUser());
    v.put("VIGIL_DB_SSLMODE", "disable");
    v.put("VIGIL_CONNECT_SLOT", SLOT);
    v.put("VIGIL_CONNECT_PUBLICATION", SLOT);
    v.put("VIGIL_CONNECT_PUBLICATION_AUTOCREATE", "filtered");
    v.put("VIGIL_CONNECT_SNAPSHOT_MODE", "no_data");
    v.put("VIGIL_CONNECT_HEARTBEAT_INTERVAL_MS", "1000");
    v.put("VIGIL_TOPIC", options.topic());
    v.put("VIGIL_TOPIC_PARTITIONS", String.valueOf(options.partitions()));
    v.put("VIGIL_TOPIC_REPLICATION_FACTOR", "1");
    return v;
  }

  /** Fills every {@code ${VIGIL_*}}; a placeholder without a value is an error naming it. */
  static String fill(String template, Map<String, String> values) {
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String value = values.get(m.group(1));
      if (value == null) {
        throw new IllegalStateException("the drill has no value for " + m.group(1));
      }
      m.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    return m.appendTail(out).toString();
  }

  private static String resource(String name) {
    try (InputStream in = ConnectWorker.class.getResourceAsStream("/kafka-connect/" + name)) {
      if (in == null) {
        throw new IllegalStateException("kafka-connect/" + name + " is not on the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read kafka-connect/" + name, e);
    }
  }

  public ServiceProcess process() {
    return process;
  }

  /**
   * Creates or updates the connector ({@code PUT /connectors/<name>/config}; idempotent), retrying
   * while the worker is still joining its group.
   */
  public void register(Duration timeout) {
    String body;
    try {
      body = JSON.writeValueAsString(JSON.readTree(connectorJson).path("config"));
    } catch (IOException e) {
      throw new UncheckedIOException("connector JSON unreadable", e);
    }
    HttpRequest request =
        HttpRequest.newBuilder(rest("/connectors/" + CONNECTOR + "/config"))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body))
            .build();
    Stack.await(
        "connector " + CONNECTOR + " accepted",
        timeout,
        () -> {
          int status = send(request).map(HttpResponse::statusCode).orElse(-1);
          if (status == 200 || status == 201) {
            return true;
          }
          if (status >= 400 && status != 409 && status != 500 && status != 503) {
            throw new IllegalStateException("worker refused the connector: HTTP " + status);
          }
          return false;
        });
    LOG.info("connector registered name={} worker={}", CONNECTOR, process);
  }

  /** Waits until the connector and its one task run; fails at once when either failed. */
  public void awaitRunning(Duration timeout) {
    HttpRequest request =
        HttpRequest.newBuilder(rest("/connectors/" + CONNECTOR + "/status"))
            .timeout(Duration.ofSeconds(10))
            .GET()
            .build();
    Stack.await(
        "connector " + CONNECTOR + " and its task running",
        timeout,
        () -> {
          HttpResponse<String> response = send(request).orElse(null);
          if (response == null || response.statusCode() != 200) {
            return false;
          }
          JsonNode status = readTree(response.body());
          JsonNode tasks = status.path("tasks");
          if (status.toString().contains("\"FAILED\"")) {
            throw new IllegalStateException("connector failed: " + status);
          }
          return "RUNNING".equals(status.path("connector").path("state").asText())
              && tasks.size() == 1
              && "RUNNING".equals(tasks.get(0).path("state").asText());
        });
  }

  private static JsonNode readTree(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new UncheckedIOException("worker status is not JSON", e);
    }
  }

  private URI rest(String path) {
    return URI.create("http://127.0.0.1:" + process.httpPort() + path);
  }

  private java.util.Optional<HttpResponse<String>> send(HttpRequest request) {
    if (!process.isAlive()) {
      throw new IllegalStateException(
          process.name() + " exited (exit " + process.exitCode() + "); see " + process.logFile());
    }
    try {
      return java.util.Optional.of(HTTP.send(request, HttpResponse.BodyHandlers.ofString()));
    } catch (IOException e) {
      return java.util.Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while asking " + process.name(), e);
    }
  }
}
