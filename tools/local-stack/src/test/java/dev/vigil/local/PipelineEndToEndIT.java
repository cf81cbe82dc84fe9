package dev.vigil.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertTopic;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.tracing.TraceParent;
import dev.vigil.kit.tracing.Tracing;
import dev.vigil.receiver.ReceivedNotification;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole path in one JVM: probe → outbox → relay (WAL) → Kafka → notifier receipt → signed
 * webhook → reference receiver, which verifies the signature and stores each notification once; and
 * each event as one trace, from the probe's span to the webhook's {@code traceparent}.
 */
@ExtendWith(VigilInfraExtension.class)
class PipelineEndToEndIT {
  private static final String TOPIC = "vigil.alerts";

  @Test
  void outageAndRecoveryReachTheReceiverOnceEachInOrder(
      TestDatabase db, TestKafka kafka, @TempDir Path dir) throws Exception {
    TestTarget target = TestTarget.start();
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    SdkTracerProvider provider =
        SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
    List<ReceivedNotification> received = new CopyOnWriteArrayList<>();
    Path targets = target.writeTargetsFile(dir.resolve("targets.yaml"), "checkout", 3);
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    LocalStackOptions options = new LocalStackOptions(dir.resolve("data"), targets, null, 0);
    LocalStack.Backing backing =
        new LocalStack.Backing(db.jdbcUrl(), db.user(), db.password(), kafka.bootstrapServers());

    // Settings from the environment reach the services; the stack's own wiring cannot be
    // overridden.
    Map<String, String> environment =
        Map.of(
            "VIGIL_MONITOR_PUBLIC_DETAILS", "all",
            "VIGIL_DB_URL", "jdbc:postgresql://nowhere.invalid/x",
            "PATH", "/usr/bin");
    try (LocalStack stack =
        LocalStack.start(
            options,
            backing,
            Map.of(),
            environment,
            new PrintStream(printed, true, StandardCharsets.UTF_8),
            Tracing.of(OpenTelemetrySdk.builder().setTracerProvider(provider).build()))) {
      stack.onNotification(received::add);
      await().atMost(Duration.ofSeconds(30)).until(() -> count(db, "check_history") >= 2);
      target.up(false);
      await().atMost(Duration.ofSeconds(60)).until(() -> alertLines(printed).size() == 1);
      target.up(true);
      await().atMost(Duration.ofSeconds(60)).until(() -> alertLines(printed).size() == 2);

      List<String> lines = alertLines(printed);
      assertThat(lines.get(0)).contains("checkout").contains("FAILED");
      assertThat(lines.get(1)).contains("checkout").contains("RECOVERED").contains("downtime=");
      assertThat(receivedKinds(db)).containsExactly("FAILED", "RECOVERED");
      assertStatusPageIsTheFirstUrl(printed.toString(StandardCharsets.UTF_8));
      // The signing secret is printed, so a newcomer can verify webhook-signature.
      java.util.Properties secrets = new java.util.Properties();
      try (var in = java.nio.file.Files.newBufferedReader(dir.resolve("data/secrets.properties"))) {
        secrets.load(in);
      }
      assertThat(printed.toString(StandardCharsets.UTF_8))
          .contains("signing secret   " + secrets.getProperty("webhookSecret"))
          .contains("your settings    VIGIL_MONITOR_PUBLIC_DETAILS (from the environment");
      // ... and applied: without the token the monitor shows the DOWN reason (public details).
      String services =
          java.net.http.HttpClient.newHttpClient()
              .send(
                  java.net.http.HttpRequest.newBuilder(
                          java.net.URI.create(
                              "http://127.0.0.1:" + stack.monitorPort() + "/api/incidents"))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(services).contains("\"firstError\"");
      assertThat(query(db, "select count(distinct webhook_id) from received_webhook"))
          .isEqualTo("2");
      assertThat(
              query(
                  db,
                  "select count(*) from received_webhook r join outbox o on o.id = r.event_id"
                      + " where o.aggregateid = 'checkout'"))
          .isEqualTo("2");
      assertThat(keysOnKafka(db, kafka)).containsExactly("checkout", "checkout");
      assertOneTraceFromProbeToWebhook(db, kafka, spans, received);

      // A replay of the service's rows (the monitor's API): on Kafka again through the
      // exactly-once relay, recognised by the notifier's receipts, paged nothing twice.
      try (java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient()) {
        java.net.http.HttpResponse<String> replay =
            http.send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(
                            "http://127.0.0.1:" + stack.monitorPort() + "/api/outbox/replay"))
                    .header("Authorization", "Bearer " + secrets.getProperty("apiToken"))
                    .POST(
                        java.net.http.HttpRequest.BodyPublishers.ofString(
                            "{\"service\":\"checkout\"}"))
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(replay.statusCode()).as(replay.body()).isEqualTo(200);
        assertThat(replay.body()).contains("\"replayed\":2");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> keysOnKafka(db, kafka).size() == 4 && duplicatesSeen(stack, http) >= 2);
      }
      assertThat(receivedKinds(db)).containsExactly("FAILED", "RECOVERED");
      assertThat(query(db, "select count(*) from received_webhook")).isEqualTo("2");
    } finally {
      target.close();
      provider.close();
    }
  }

  /**
   * Each event is one trace: the monitor's probe span (a root) wrote its traceparent with the
   * outbox row, the relay put the same value on the record, and the notifier's delivery span, a
   * child of the probe span, sent its own traceparent with the webhook.
   */
  private static void assertOneTraceFromProbeToWebhook(
      TestDatabase db,
      TestKafka kafka,
      InMemorySpanExporter spans,
      List<ReceivedNotification> received)
      throws Exception {
    assertThat(received).extracting(n -> n.event().kind().name()).contains("FAILED", "RECOVERED");
    Set<String> traces = new HashSet<>();
    for (ReceivedNotification n : received) {
      String eventId = n.event().eventId().toString();
      String written = query(db, "select traceparent from outbox where id = '" + eventId + "'");
      TraceParent probe = TraceParent.parse(written).orElseThrow();
      assertThat(traceOnKafka(kafka, eventId)).isEqualTo(written);
      TraceParent webhook = TraceParent.parse(n.traceparent()).orElseThrow();
      SpanData deliver =
          await().atMost(Duration.ofSeconds(10)).until(() -> span(spans, webhook), d -> d != null);
      SpanData probed =
          await().atMost(Duration.ofSeconds(10)).until(() -> span(spans, probe), p -> p != null);
      assertThat(probed.getName()).isEqualTo("probe");
      assertThat(probed.getParentSpanContext().isValid()).isFalse();
      assertThat(probed.getAttributes().get(AttributeKey.stringKey("vigil.service")))
          .isEqualTo("checkout");
      assertThat(deliver.getName()).isEqualTo("deliver");
      assertThat(deliver.getTraceId()).isEqualTo(probed.getTraceId());
      assertThat(deliver.getParentSpanId()).isEqualTo(probed.getSpanId());
      assertThat(deliver.getAttributes().get(AttributeKey.stringKey("vigil.event_id")))
          .isEqualTo(eventId);
      traces.add(probed.getTraceId());
    }
    // FAILED and RECOVERED were decided by different probes: two traces, not one.
    assertThat(traces).hasSize(received.size());
  }

  private static SpanData span(InMemorySpanExporter spans, TraceParent id) {
    return spans.getFinishedSpanItems().stream()
        .filter(s -> s.getSpanId().equals(id.spanId()) && s.getTraceId().equals(id.traceId()))
        .findFirst()
        .orElse(null);
  }

  /** The traceparent header of the event's record on the topic. */
  private static String traceOnKafka(TestKafka kafka, String eventId) {
    for (ConsumerRecord<byte[], byte[]> record : kafka.readCommitted(TOPIC)) {
      Header id = record.headers().lastHeader(AlertTopic.HEADER_EVENT_ID);
      if (id != null && eventId.equals(new String(id.value(), StandardCharsets.UTF_8))) {
        Header trace = record.headers().lastHeader(AlertTopic.HEADER_TRACEPARENT);
        return trace == null || trace.value() == null
            ? null
            : new String(trace.value(), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  private static List<String> alertLines(ByteArrayOutputStream printed) {
    return printed
        .toString(StandardCharsets.UTF_8)
        .lines()
        .filter(line -> line.contains("incident="))
        .toList();
  }

  private static List<String> receivedKinds(TestDatabase db) throws Exception {
    List<String> kinds = new ArrayList<>();
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("select kind from received_webhook order by seq")) {
      while (rs.next()) {
        kinds.add(rs.getString(1));
      }
    }
    return kinds;
  }

  /**
   * The keys of this test's outbox events on the topic, read to its end in offset order. The topic
   * is the stack's default and the broker is shared by every test of this JVM, so other stacks'
   * events may be there too: only this database's outbox ids count (a copy of one would too).
   */
  private static List<String> keysOnKafka(TestDatabase db, TestKafka kafka) throws Exception {
    Set<String> ids = new HashSet<>();
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("select id::text from outbox")) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    }
    List<String> keys = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> record : kafka.readCommitted(TOPIC)) {
      Header id = record.headers().lastHeader(AlertTopic.HEADER_EVENT_ID);
      if (id != null && ids.contains(new String(id.value(), StandardCharsets.UTF_8))) {
        keys.add(new String(record.key(), StandardCharsets.UTF_8));
      }
    }
    return keys;
  }

  /** The notifier's count of events it read again and recognised by their receipt. */
  private static double duplicatesSeen(LocalStack stack, java.net.http.HttpClient http)
      throws Exception {
    String metrics =
        http.send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(
                            "http://127.0.0.1:" + stack.notifierPort() + "/metrics"))
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString())
            .body();
    return metrics
        .lines()
        .filter(line -> line.startsWith("vigil_notifier_duplicates_total"))
        .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
        .sum();
  }

  private static long count(TestDatabase db, String table) throws Exception {
    return Long.parseLong(query(db, "select count(*) from " + table));
  }

  private static String query(TestDatabase db, String sql) throws Exception {
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** The banner's first URL is the status page, and it shows the target. */
  private static void assertStatusPageIsTheFirstUrl(String printed) throws Exception {
    String first =
        printed.lines().filter(line -> line.contains("http://")).findFirst().orElseThrow();
    assertThat(first).matches("\\s*status page\\s+http://127\\.0\\.0\\.1:\\d+/status");
    try (java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient()) {
      java.net.http.HttpResponse<String> page =
          http.send(
              java.net.http.HttpRequest.newBuilder(
                      java.net.URI.create(first.substring(first.indexOf("http://"))))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.body()).contains("data-service=\"checkout\"");
    }
  }
}
