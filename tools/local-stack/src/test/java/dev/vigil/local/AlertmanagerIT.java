package dev.vigil.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.webhook.WebhookSecret;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.notifier.NotifierConfig;
import dev.vigil.notifier.NotifierService;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Alertmanager (Debian package {@code prometheus-alertmanager}; skipped with the reason when
 * it is missing), started once for the class on a free port with clustering off and a temporary
 * storage path, routes every alert to a local webhook. The notifier, configured with the routes the
 * local stack's {@code --alertmanager} option builds, posts FAILED then RECOVERED; Alertmanager
 * notifies the webhook firing, then resolved.
 */
@ExtendWith(VigilInfraExtension.class)
class AlertmanagerIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<JsonNode> NOTIFIED = new CopyOnWriteArrayList<>();
  @TempDir static Path dir;
  private static Process alertmanager;
  private static HttpServer webhook;
  private static String api;

  @BeforeAll
  static void startAlertmanager() throws Exception {
    Optional<Path> binary = ObservabilityKit.tool("prometheus-alertmanager");
    assumeTrue(
        binary.isPresent(),
        "prometheus-alertmanager not installed (Debian package prometheus-alertmanager;"
            + " .ci/run installs it): not run");
    webhook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    webhook.createContext(
        "/am",
        exchange -> {
          try (exchange) {
            NOTIFIED.add(JSON.readTree(exchange.getRequestBody().readAllBytes()));
            exchange.sendResponseHeaders(200, -1);
          }
        });
    webhook.start();
    Path config = dir.resolve("alertmanager.yml");
    Files.writeString(
        config,
        """
        route:
          receiver: local
          group_by: [service]
          group_wait: 1s
          group_interval: 1s
          repeat_interval: 1h
        receivers:
          - name: local
            webhook_configs:
              - url: http://127.0.0.1:%d/am
                send_resolved: true
        """
            .formatted(webhook.getAddress().getPort()));
    int port = freePort();
    api = "http://127.0.0.1:" + port;
    alertmanager =
        new ProcessBuilder(
                binary.get().toString(),
                "--config.file=" + config,
                "--storage.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port,
                "--cluster.listen-address=",
                "--log.level=warn")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("alertmanager.log").toFile())
            .start();
    HttpClient http = HttpClient.newHttpClient();
    await("Alertmanager ready (log: " + dir.resolve("alertmanager.log") + ")")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(300))
        .ignoreExceptions()
        .until(
            () ->
                http.send(
                            HttpRequest.newBuilder(URI.create(api + "/-/ready")).build(),
                            HttpResponse.BodyHandlers.discarding())
                        .statusCode()
                    == 200);
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (alertmanager != null) {
      alertmanager.destroy();
      if (!alertmanager.waitFor(30, TimeUnit.SECONDS)) {
        alertmanager.destroyForcibly();
      }
    }
    if (webhook != null) {
      webhook.stop(0);
    }
  }

  @Test
  void failedThenRecoveredFireAndResolveThroughAlertmanagersOwnRoute(
      TestDatabase db, TestKafka kafka) throws Exception {
    String topic = kafka.uniqueName("alerts");
    kafka.createTopic(topic, 1);
    LocalStackOptions options = new LocalStackOptions(dir.resolve("stack"), null, null, 0, api);
    Map<String, String> settings = new HashMap<>();
    settings.put("VIGIL_DB_URL", db.jdbcUrl());
    settings.put("VIGIL_DB_USER", db.user());
    settings.put("VIGIL_HTTP_PORT", "0");
    settings.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    settings.put("VIGIL_TOPIC", topic);
    settings.put("VIGIL_NOTIFIER_GROUP_ID", kafka.uniqueName("notifier"));
    settings.put("VIGIL_WEBHOOK_URL", "http://127.0.0.1:" + webhook.getAddress().getPort() + "/x");
    settings.put("VIGIL_WEBHOOK_ALLOW_HTTP", "true");
    settings.put("VIGIL_WEBHOOK_SECRETS", WebhookSecret.generate());
    settings.put("VIGIL_NOTIFIER_ROUTES", options.notifierRoutes());
    settings.put("VIGIL_NOTIFIER_BACKOFF_INITIAL", "50ms");
    settings.put("VIGIL_NOTIFIER_BACKOFF_MAX", "1s");
    settings.put("VIGIL_WEBHOOK_READ_TIMEOUT", "60s");
    settings.put("VIGIL_NOTIFIER_LEASE", "120s");
    AlertEvent down =
        AlertEvent.failed(
            UUID.randomUUID(), UUID.randomUUID(), "checkout", Instant.now(), 3, "HTTP 503");
    try (NotifierService notifier =
            NotifierService.start(new NotifierConfig(new Settings(settings)));
        KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
      // The monitor's span as the relay would carry it: the notifier's delivery span is its child.
      String monitorTrace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
      produce(producer, topic, down, monitorTrace);
      await("Alertmanager notifies firing")
          .atMost(Duration.ofMinutes(2))
          .until(() -> notification("firing", down).isPresent());
      JsonNode firing = notification("firing", down).orElseThrow();
      assertThat(firing.get("version").asText()).isEqualTo("4");
      assertThat(firing.at("/commonLabels/alertname").asText()).isEqualTo("VigilServiceDown");
      assertThat(firing.at("/commonLabels/service").asText()).isEqualTo("checkout");
      assertThat(firing.at("/commonAnnotations/last_error").asText()).isEqualTo("HTTP 503");
      assertThat(firing.at("/commonAnnotations/traceparent").asText())
          .matches("00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01")
          .isNotEqualTo(monitorTrace);
      assertThat(Instant.parse(firing.at("/alerts/0/startsAt").asText()))
          .isEqualTo(down.occurredAt());

      AlertEvent up =
          AlertEvent.recovered(
              UUID.randomUUID(),
              down.incidentId(),
              "checkout",
              Instant.now(),
              3,
              "HTTP 503",
              down.occurredAt());
      produce(producer, topic, up, null);
      await("Alertmanager notifies resolved")
          .atMost(Duration.ofMinutes(2))
          .until(() -> notification("resolved", down).isPresent());
      assertThat(
              Instant.parse(
                  notification("resolved", down).orElseThrow().at("/alerts/0/endsAt").asText()))
          .isEqualTo(up.occurredAt());
    }
  }

  /** A notification about {@code event}'s incident with {@code status}. */
  private static Optional<JsonNode> notification(String status, AlertEvent event) {
    return NOTIFIED.stream()
        .filter(n -> status.equals(n.path("status").asText()))
        .filter(
            n -> event.incidentId().toString().equals(n.at("/commonLabels/incident_id").asText()))
        .findFirst();
  }

  private static KafkaProducer<byte[], byte[]> producer(TestKafka kafka) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG,
            "all"),
        new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  private static void produce(
      KafkaProducer<byte[], byte[]> producer, String topic, AlertEvent event, String traceparent)
      throws Exception {
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(
            topic,
            event.service().getBytes(StandardCharsets.UTF_8),
            AlertEventJson.write(event).getBytes(StandardCharsets.UTF_8));
    if (traceparent != null) {
      record.headers().add("traceparent", traceparent.getBytes(StandardCharsets.UTF_8));
    }
    producer.send(record).get(30, TimeUnit.SECONDS);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
