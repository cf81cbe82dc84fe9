package dev.vigil.relay;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertTopic;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.kafka.KafkaMessageFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One relay, shared by the tests of this class (each test uses its own service names), streaming a
 * fresh database to a fresh topic.
 */
@ExtendWith(dev.vigil.harness.junit.VigilInfraExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RelayStreamingIT {
  private TestDatabase db;
  private TestKafka kafka;
  private String topic;
  private RelayService relay;
  private String slot;
  private TopicReader reader;

  @BeforeAll
  void startRelay(TestDatabase db, TestKafka kafka) throws Exception {
    this.db = db;
    this.kafka = kafka;
    RelayFixture.migrateMonitor(db);
    RelayFixture.createSequenceTable(db);
    topic = kafka.uniqueName("alerts");
    slot = RelayFixture.uniqueSlot("stream");
    relay =
        RelayFixture.startStreaming(
            RelayFixture.config(RelayFixture.env(db, kafka, slot, topic, "a")));
    reader = new TopicReader(kafka.bootstrapServers(), topic);
  }

  @AfterAll
  void stopRelay() {
    if (reader != null) {
      reader.close();
    }
    if (relay != null) {
      relay.close();
    }
  }

  @Test
  void tenThousandRowsFromFourWritersArriveUnderTheirKeyInCommitOrderPerService() throws Exception {
    int writers = 4;
    int transactionsPerWriter = 250;
    int rowsPerTransaction = 10;
    List<String> services = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      services.add("load-" + i);
    }
    Map<String, String> expectedService = new ConcurrentHashMap<>();
    RelayFixture.StreamingRun run = steadyRun("run-before-load");
    long started = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      done.add(
          pool.submit(
              () -> {
                try (Connection c = db.connect()) {
                  for (int t = 0; t < transactionsPerWriter; t++) {
                    // Ten distinct services per transaction; writers overlap on services, so
                    // the counters' row locks decide each service's commit order.
                    int first = (writer * 13 + t * 7) % services.size();
                    List<String> batch = new ArrayList<>();
                    for (int k = 0; k < rowsPerTransaction; k++) {
                      batch.add(services.get((first + k) % services.size()));
                    }
                    for (AlertEvent event : RelayFixture.insertNextBatch(c, batch)) {
                      expectedService.put(event.eventId().toString(), event.service());
                    }
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : done) {
      f.get();
    }
    pool.shutdown();
    long written = System.nanoTime();

    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> distinctIds(reader.poll(), "load-").size() == 10_000);
    long arrived = System.nanoTime();
    System.out.printf(
        "relay load: 10000 rows written in %d ms, all in Kafka after %d ms (%.0f events/s)%n",
        (written - started) / 1_000_000,
        (arrived - started) / 1_000_000,
        10_000 / ((arrived - started) / 1e9));

    Map<String, List<Integer>> sequenceByService = new LinkedHashMap<>();
    Set<Integer> partitionsUsed = new java.util.HashSet<>();
    Map<String, Integer> partitionOfService = new HashMap<>();
    for (TopicReader.Received r : sortedByPartitionOffset(reader.poll(), "load-")) {
      String id = r.headers().get(AlertTopic.HEADER_EVENT_ID);
      assertThat(r.keyText()).isEqualTo(expectedService.get(id));
      assertThat(partitionOfService.computeIfAbsent(r.keyText(), k -> r.partition()))
          .as("one partition per service")
          .isEqualTo(r.partition());
      partitionsUsed.add(r.partition());
      AlertEvent event = AlertEventJson.read(r.value());
      sequenceByService
          .computeIfAbsent(r.keyText(), k -> new ArrayList<>())
          .add(event.consecutiveFailures());
    }
    assertThat(sequenceByService).hasSize(50);
    assertThat(partitionsUsed).hasSizeGreaterThan(1);
    // The relay is at-least-once: a restart (e.g. its lock connection check failing under load)
    // legitimately sends the unacknowledged tail again. Without one, nothing may arrive twice.
    assertThat(RelayFixture.currentRun(relay, db, slot))
        .as(
            "the relay ran without restarting during the load (else duplicates are expected;"
                + " see the log's 'relay state' lines and Debezium's 'restart connector')")
        .isEqualTo(run);
    sequenceByService.forEach(
        (service, sequence) -> {
          List<Integer> deduplicated = sequence.stream().distinct().toList();
          assertThat(deduplicated).as("commit order of %s", service).isSorted();
          assertThat(deduplicated.getLast()).isEqualTo(deduplicated.size());
          assertThat(sequence).as("%s has no duplicates", service).doesNotHaveDuplicates();
        });
  }

  @Test
  void anOutsideClientSeesPlainStringKeysJsonObjectValuesAndHeaders() throws Exception {
    AlertEvent event;
    try (Connection c = db.connect()) {
      event = RelayFixture.insertNext(c, "format-check");
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> reader.poll().stream().anyMatch(r -> "format-check".equals(r.keyText())));
    TopicReader.Received r =
        reader.poll().stream().filter(x -> "format-check".equals(x.keyText())).findFirst().get();

    assertThat(r.key()).isEqualTo("format-check".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(r.valueText()).startsWith("{");
    JsonNode value = AlertEventJson.mapper().readTree(r.value());
    assertThat(value.isObject()).isTrue();
    assertThat(value.get("eventId").asText()).isEqualTo(event.eventId().toString());
    assertThat(value.get("service").asText()).isEqualTo("format-check");
    assertThat(AlertEventJson.read(r.value())).isEqualTo(event);
    assertThat(r.headers())
        .containsEntry(AlertTopic.HEADER_EVENT_ID, event.eventId().toString())
        .containsEntry(AlertTopic.HEADER_KIND, "FAILED")
        .containsEntry(AlertTopic.HEADER_INCIDENT_ID, event.incidentId().toString())
        .containsEntry(AlertTopic.HEADER_SCHEMA_VERSION, "1")
        .containsEntry(AlertTopic.HEADER_TRACEPARENT, RelayFixture.traceparent(event))
        // The contract's headers and nothing else (no __debezium.context.* headers).
        .containsOnlyKeys(AlertTopic.HEADERS.toArray(String[]::new));
  }

  /**
   * The CloudEvents SDK's Kafka binding reads every kind of record as a binary-mode event: the
   * attributes from the {@code ce_*} headers, the data = the record value (the payload).
   */
  @Test
  void theCloudEventsSdkReadsEveryKindAsABinaryModeEvent() throws Exception {
    String service = "cloudevents-check";
    UUID incident = UUID.randomUUID();
    Instant opened = Instant.parse("2026-12-03T10:15:30.123456789Z");
    List<AlertEvent> events =
        List.of(
            AlertEvent.failed(UUID.randomUUID(), incident, service, opened, 3, "HTTP 503"),
            AlertEvent.reminder(
                UUID.randomUUID(),
                incident,
                service,
                opened.plusSeconds(60),
                9,
                "HTTP 503",
                opened),
            AlertEvent.recovered(
                UUID.randomUUID(), incident, service, opened.plusSeconds(90), 0, null, opened));
    try (Connection c = db.connect()) {
      c.setAutoCommit(true);
      for (AlertEvent event : events) {
        RelayFixture.insert(c, event);
      }
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> reader.poll().stream().filter(r -> service.equals(r.keyText())).count() == 3);
    List<TopicReader.Received> records =
        reader.poll().stream().filter(r -> service.equals(r.keyText())).toList();

    for (int i = 0; i < events.size(); i++) {
      AlertEvent sent = events.get(i);
      TopicReader.Received r = records.get(i);
      RecordHeaders headers = new RecordHeaders();
      r.headers().forEach((k, v) -> headers.add(k, v.getBytes(UTF_8)));
      CloudEvent event = KafkaMessageFactory.createReader(headers, r.value()).toEvent();

      assertThat(event.getSpecVersion()).isEqualTo(SpecVersion.V1);
      assertThat(event.getId()).isEqualTo(sent.eventId().toString());
      assertThat(event.getType()).isEqualTo(AlertTopic.cloudEventType(sent.kind()));
      assertThat(event.getSource()).isEqualTo(URI.create(AlertTopic.CE_SOURCE));
      assertThat(event.getSubject()).isEqualTo(service);
      assertThat(event.getTime()).isNotNull();
      assertThat(event.getTime().toInstant()).isEqualTo(sent.occurredAt());
      assertThat(event.getDataContentType()).isEqualTo("application/json");
      assertThat(AlertEventJson.read(event.getData().toBytes())).isEqualTo(sent);
    }
    assertThat(records)
        .extracting(r -> r.headers().get(AlertTopic.HEADER_CE_TYPE))
        .containsExactly(
            "dev.vigil.alert.failed", "dev.vigil.alert.reminder", "dev.vigil.alert.recovered");
  }

  /** Debian's kcat as the outside client; skipped where it is not installed. */
  @Test
  void kcatReadsPlainKeysJsonObjectValuesAndContractHeaders() throws Exception {
    java.nio.file.Path kcat = java.nio.file.Path.of("/usr/bin/kcat");
    org.junit.jupiter.api.Assumptions.assumeTrue(
        java.nio.file.Files.isExecutable(kcat), "kcat is not installed (apt-get install kcat)");
    AlertEvent event;
    try (Connection c = db.connect()) {
      event = RelayFixture.insertNext(c, "kcat-check");
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> reader.poll().stream().anyMatch(r -> "kcat-check".equals(r.keyText())));

    Process process =
        new ProcessBuilder(
                kcat.toString(),
                "-C",
                "-b",
                kafka.bootstrapServers(),
                "-t",
                topic,
                "-o",
                "beginning",
                "-e",
                "-q",
                "-f",
                "%k\t%h\t%s\n")
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes(), UTF_8);
    assertThat(process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    String line =
        output
            .lines()
            .filter(l -> l.startsWith("kcat-check\t"))
            .findFirst()
            .orElseThrow(
                () -> new AssertionError("kcat output has no kcat-check record: " + output));
    String[] fields = line.split("\t", 3);
    assertThat(fields[1])
        .contains("id=" + event.eventId())
        .contains("kind=FAILED")
        .contains("incident_id=" + event.incidentId())
        .contains("schema_version=1");
    assertThat(fields[2]).startsWith("{");
    assertThat(AlertEventJson.read(fields[2].getBytes(UTF_8))).isEqualTo(event);
  }

  /** Prints commit-to-consumer latency of single rows on an otherwise idle relay. */
  @Test
  void singleRowsReachKafkaSoonAfterCommit() throws Exception {
    List<Long> latenciesMs = new ArrayList<>();
    try (Connection c = db.connect()) {
      // The embedded test server defaults to synchronous_commit=off, where WAL reaches the
      // walsender only at the WAL writer's next round (wal_writer_delay, 200 ms). Production
      // commits are synchronous; measure that.
      try (java.sql.Statement s = c.createStatement()) {
        s.execute("set synchronous_commit = on");
      }
      for (int i = 0; i < 20; i++) {
        String service = "latency-" + i;
        RelayFixture.insertNext(c, service);
        long committed = System.nanoTime();
        await()
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(1))
            .until(() -> reader.poll().stream().anyMatch(r -> service.equals(r.keyText())));
        latenciesMs.add((System.nanoTime() - committed) / 1_000_000);
      }
    }
    List<Long> sorted = latenciesMs.stream().sorted().toList();
    System.out.printf(
        "single-row latency commit->consumer: median %d ms, max %d ms (%s)%n",
        sorted.get(sorted.size() / 2), sorted.getLast(), latenciesMs);
    assertThat(latenciesMs).hasSize(20);
  }

  @Test
  void healthAndMetricsReportTheStreamingInstance() throws Exception {
    try (Connection c = db.connect()) {
      RelayFixture.insertNext(c, "metrics-check");
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> reader.poll().stream().anyMatch(r -> "metrics-check".equals(r.keyText())));
    HttpClient http = HttpClient.newHttpClient();
    String behind =
        get(http, "/metrics")
            .body()
            .lines()
            .filter(l -> l.startsWith("vigil_relay_behind_source_ms"))
            .findFirst()
            .orElse("");
    System.out.println("single row on an idle relay, commit to Kafka ack: " + behind);
    HttpResponse<String> health = get(http, "/health");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body())
        .contains("\"status\":\"UP\"", "\"state\":\"streaming\"", "\"instance\":\"a\"");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(get(http, "/metrics").body())
                    .containsPattern("vigil_relay_events_relayed_total [1-9]")
                    .containsPattern("vigil_relay_batches_total [1-9]")
                    .contains("vigil_relay_kafka_send_seconds")
                    .containsPattern("vigil_relay_behind_source_ms [0-9]")
                    .containsPattern("vigil_relay_slot_lag_bytes [0-9]")
                    .containsPattern("vigil_relay_last_event_age_seconds [0-9]")
                    .contains("vigil_relay_active 1.0"));
  }

  /**
   * While the outbox is idle and only a table outside the publication takes writes, the slot still
   * advances: the relay's heartbeat rows (published, every second here) give Debezium positions to
   * confirm. Without them the slot would hold back all of this WAL. 64 MB of it, in 8 MB chunks;
   * after each chunk the slot must confirm a position past the chunk's end before the next one.
   */
  @Test
  void slotLagStaysBoundedWhileOnlyOtherTablesTakeWrites() throws Exception {
    long chunkBytes = 8L * 1024 * 1024;
    int chunks = 8;
    List<Long> confirmMs = new ArrayList<>();
    try (Connection c = db.connect();
        java.sql.Statement s = c.createStatement()) {
      s.execute("create table busy_table (id bigserial primary key, filler text)");
      for (int chunk = 0; chunk < chunks; chunk++) {
        long chunkStart = currentLsn(s);
        while (currentLsn(s) - chunkStart < chunkBytes) {
          s.execute(
              "insert into busy_table (filler) select repeat(md5(random()::text), 32)"
                  + " from generate_series(1, 100)");
        }
        long chunkEnd = currentLsn(s);
        int n = chunk + 1;
        long written = System.nanoTime();
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(100))
            .untilAsserted(
                () ->
                    assertThat(confirmedFlushLsn(s))
                        .as("slot confirmed past the end of chunk %d", n)
                        .isGreaterThanOrEqualTo(chunkEnd));
        confirmMs.add((System.nanoTime() - written) / 1_000_000);
      }
    }
    System.out.printf(
        "idle outbox: %d MB of WAL to another table in %d chunks; slot confirmed each chunk's end"
            + " after %s ms%n",
        chunks * chunkBytes / (1024 * 1024), chunks, confirmMs);
  }

  private long currentLsn(java.sql.Statement s) throws java.sql.SQLException {
    try (var rs = s.executeQuery("select (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private long confirmedFlushLsn(java.sql.Statement s) throws java.sql.SQLException {
    try (var rs =
        s.executeQuery(
            "select (confirmed_flush_lsn - '0/0'::pg_lsn)::bigint"
                + " from pg_replication_slots where slot_name = '"
                + slot
                + "'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Writes one row for {@code service}, waits until it is in Kafka and returns the relay's run: a
   * row streamed after the start shows the engine is past its start-up, where Debezium may still
   * reconnect its replication connection once.
   */
  private RelayFixture.StreamingRun steadyRun(String service) throws Exception {
    try (Connection c = db.connect()) {
      RelayFixture.insertNext(c, service);
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> reader.poll().stream().anyMatch(r -> service.equals(r.keyText())));
    return RelayFixture.currentRun(relay, db, slot);
  }

  private HttpResponse<String> get(HttpClient http, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + relay.httpPort() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static Set<String> distinctIds(List<TopicReader.Received> records, String prefix) {
    return records.stream()
        .filter(r -> r.keyText() != null && r.keyText().startsWith(prefix))
        .map(r -> r.headers().get(AlertTopic.HEADER_EVENT_ID))
        .collect(Collectors.toSet());
  }

  private static List<TopicReader.Received> sortedByPartitionOffset(
      List<TopicReader.Received> records, String prefix) {
    List<TopicReader.Received> list =
        new ArrayList<>(
            records.stream()
                .filter(r -> r.keyText() != null && r.keyText().startsWith(prefix))
                .toList());
    Collections.sort(
        list,
        java.util.Comparator.comparingInt(TopicReader.Received::partition)
            .thenComparingLong(TopicReader.Received::offset));
    return list;
  }
}
