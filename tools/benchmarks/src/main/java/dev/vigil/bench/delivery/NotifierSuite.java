package dev.vigil.bench.delivery;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Prometheus;
import dev.vigil.bench.Suite;
import dev.vigil.bench.outbox.Clocks;
import dev.vigil.bench.outbox.OutboxRun;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertTopic;
import dev.vigil.notifier.NotifierService;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Notifier throughput: a topic is filled with alternating FAILED / RECOVERED events of 500
 * services, then the notifier starts (default settings) and delivers them to a local receiver that
 * answers at once. Deliveries/s run from the first to the last event's arrival; per-service order
 * is checked against the order produced.
 */
public final class NotifierSuite implements Suite {
  public static final String NAME = Cases.NOTIFIER;
  public static final String CASE = Cases.NOTIFIER_CASE;
  private static final int SERVICES_COUNT = 500;

  @Override
  public void run(BenchContext ctx) {
    int events = ctx.options().quick() ? 5_000 : 20_000;
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      ctx.addMedian(
          NAME,
          CASE,
          events
              + " events of "
              + SERVICES_COUNT
              + " services already in Kafka when the notifier starts",
          rep -> measure(ctx, receiver, rep, events));
      ctx.addMedian(
          NAME,
          "receiver alone",
          "the local receiver driven by a plain HTTP/1.1 client, 128 requests in flight:"
              + " its capacity, so it is not what limits the notifier",
          rep -> receiverAlone(receiver));
    }
  }

  private static Map<String, Double> receiverAlone(WebhookReceiver receiver) {
    receiver.clear();
    byte[] body =
        AlertEventJson.write(
                AlertEvent.failed(
                    UUID.randomUUID(), UUID.randomUUID(), "probe", Instant.now(), 3, "HTTP 503"))
            .getBytes(StandardCharsets.UTF_8);
    int requests = 10_000;
    java.util.concurrent.Semaphore window = new java.util.concurrent.Semaphore(128);
    java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(requests);
    try (java.net.http.HttpClient client =
        java.net.http.HttpClient.newBuilder()
            .version(java.net.http.HttpClient.Version.HTTP_1_1)
            .build()) {
      java.net.http.HttpRequest request =
          java.net.http.HttpRequest.newBuilder(java.net.URI.create(receiver.url()))
              .header("Content-Type", "application/json")
              .POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(body))
              .build();
      long started = System.nanoTime();
      for (int i = 0; i < requests; i++) {
        window.acquireUninterruptibly();
        client
            .sendAsync(request, java.net.http.HttpResponse.BodyHandlers.discarding())
            .whenComplete(
                (r, e) -> {
                  window.release();
                  done.countDown();
                });
      }
      done.await();
      Map<String, Double> m = new LinkedHashMap<>();
      m.put("events_per_s", requests / ((System.nanoTime() - started) / 1e9));
      return m;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } finally {
      receiver.clear();
    }
  }

  private static Map<String, Double> measure(
      BenchContext ctx, WebhookReceiver receiver, int rep, int events) {
    String topic = "bench.notify." + rep + "." + System.nanoTime();
    ctx.infra().createTopic(topic, PARTITIONS);
    Map<String, List<UUID>> produced = produce(ctx.infra().bootstrapServers(), topic, events);
    receiver.clear();
    long started = Clocks.nowMicros();
    Map<String, Double> m = new LinkedHashMap<>();
    try (NotifierService notifier =
        Notifier.start(
            ctx.infra(), "bench_notifier", topic, "bench-notifier-" + topic, receiver.url())) {
      long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
      while (receiver.distinct() < events && System.nanoTime() < deadline) {
        OutboxRun.sleep(20);
      }
      Map<String, Double> metrics = Prometheus.scrape(notifier.httpPort());
      m.put(
          "receipt_to_delivery_mean_ms",
          Prometheus.meanMs(metrics, "vigil_notifier_delivery_latency_seconds"));
      m.put(
          "webhook_request_mean_ms",
          Prometheus.meanMs(metrics, "vigil_notifier_request_duration_seconds"));
    }
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (long at : receiver.firstArrival().values()) {
      first = Math.min(first, at);
      last = Math.max(last, at);
    }
    int violations = 0;
    for (var e : produced.entrySet()) {
      if (!receiver.order(e.getKey()).equals(e.getValue())) {
        violations++;
      }
    }
    m.put("events_per_s", receiver.distinct() / ((last - first + 1000) / 1e6));
    m.put("incl_start_per_s", receiver.distinct() / ((last - started) / 1e6));
    m.put("delivered", (double) receiver.distinct());
    m.put("duplicates", (double) (receiver.requests() - receiver.distinct()));
    m.put("services_out_of_order", (double) violations);
    return m;
  }

  private static Map<String, List<UUID>> produce(String bootstrap, String topic, int events) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    // Not idempotent: under load the in-JVM broker rejected this prefill with
    // OUT_OF_ORDER_SEQUENCE_NUMBER. One request in flight keeps the per-partition order instead.
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    Map<String, List<UUID>> order = new LinkedHashMap<>();
    Instant t0 = Instant.now().minusSeconds(3600);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      UUID[] incident = new UUID[SERVICES_COUNT];
      Instant[] opened = new Instant[SERVICES_COUNT];
      for (int i = 0; i < events; i++) {
        int s = i % SERVICES_COUNT;
        String service = "notify-" + s;
        Instant at = t0.plusMillis(i);
        AlertEvent event;
        if (incident[s] == null) {
          incident[s] = UUID.randomUUID();
          opened[s] = at;
          event = AlertEvent.failed(UUID.randomUUID(), incident[s], service, at, 3, "HTTP 503");
        } else {
          event =
              AlertEvent.recovered(
                  UUID.randomUUID(), incident[s], service, at, 3, "HTTP 503", opened[s]);
          incident[s] = null;
        }
        ProducerRecord<String, String> record =
            new ProducerRecord<>(topic, service, AlertEventJson.write(event));
        record.headers().add(AlertTopic.HEADER_EVENT_ID, utf8(event.eventId().toString()));
        record.headers().add(AlertTopic.HEADER_KIND, utf8(event.kind().name()));
        record.headers().add(AlertTopic.HEADER_INCIDENT_ID, utf8(event.incidentId().toString()));
        record
            .headers()
            .add(AlertTopic.HEADER_SCHEMA_VERSION, utf8(String.valueOf(event.schemaVersion())));
        producer.send(record);
        order.computeIfAbsent(service, k -> new ArrayList<>()).add(event.eventId());
      }
      producer.flush();
    }
    return order;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
