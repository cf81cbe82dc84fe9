package dev.vigil.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertKind;
import dev.vigil.contract.AlertTopic;
import dev.vigil.harness.FreePorts;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.relay.RelayService;
import dev.vigil.relay.config.RelayConfig;
import dev.vigil.relay.ops.RelayStatus;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.KafkaMessageFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The contract test of the two deployments: a real Kafka Connect worker in distributed mode (this
 * JVM, the in-JVM broker, the embedded PostgreSQL) runs the shipped worker properties and connector
 * JSON, and the embedded relay streams the same outbox through its own slot to its own topic. Both
 * must write byte-identical records: key, value, headers (names, values, order), partition, and the
 * order of each service's records.
 */
@ExtendWith(VigilInfraExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConnectorContractIT {
  static final Path WORKER_PROPERTIES = Path.of("worker", "connect-distributed.properties");
  static final Path CONNECTOR_JSON = Path.of("connector", "vigil-outbox-connector.json");
  private static final int PARTITIONS = 4;

  /** The connector JSON's topic.prefix: Debezium's source partition is {"server": <prefix>}. */
  private static final String CONNECTOR_TOPIC_PREFIX = "vigil_connect";

  private static final List<String> CONTRACT_HEADERS = AlertTopic.HEADERS;

  private final AlertEventSchema schema = new AlertEventSchema();
  private TestDatabase db;
  private TestKafka kafka;
  private String suffix;
  private String relayTopic;
  private String connectTopic;
  private String connectSlot;
  private RelayService relay;
  private ConnectWorker worker;

  @BeforeAll
  void startBoth(TestDatabase db, TestKafka kafka) throws Exception {
    this.db = db;
    this.kafka = kafka;
    Outbox.migrate(db);
    suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    relayTopic = kafka.uniqueName("relay-alerts");
    connectTopic = kafka.uniqueName("connect-alerts");
    connectSlot = "contract_connect_" + suffix;

    relay = RelayService.start(new RelayConfig(new Settings(relayEnv())));
    await("relay streaming")
        .atMost(Duration.ofMinutes(2))
        .until(() -> relay.status().state() == RelayStatus.State.STREAMING);

    Map<String, String> values = connectValues();
    worker = ConnectWorker.start(Placeholders.fill(Files.readString(WORKER_PROPERTIES), values));
    String name = worker.put(Placeholders.fill(Files.readString(CONNECTOR_JSON), values));
    worker.awaitRunning(name);
    // Rows committed after the slot exists are streamed; wait for it before writing any.
    await("connector slot created")
        .atMost(Duration.ofMinutes(2))
        .until(() -> slotExists(connectSlot));
  }

  @AfterAll
  void stopBoth() {
    if (worker != null) {
      worker.close();
    }
    if (relay != null) {
      relay.close();
    }
  }

  @Test
  @Order(1)
  void relayAndConnectorWriteByteIdenticalRecords() throws Exception {
    List<AlertEvent> written = writeOutbox();

    List<TopicRecords.Wire> fromRelay = readAll(relayTopic, written);
    List<TopicRecords.Wire> fromConnect = readAll(connectTopic, written);

    // Exactly the events written, each once, from both.
    Set<String> ids = written.stream().map(e -> e.eventId().toString()).collect(Collectors.toSet());
    assertThat(fromConnect)
        .extracting(w -> w.header(AlertTopic.HEADER_EVENT_ID))
        .hasSameElementsAs(ids)
        .doesNotHaveDuplicates();
    assertThat(fromRelay)
        .extracting(w -> w.header(AlertTopic.HEADER_EVENT_ID))
        .hasSameElementsAs(ids)
        .doesNotHaveDuplicates();

    // Nothing else on the connector's topic: no record for the deleted rows, no tombstone.
    assertThat(kafka.readCommitted(connectTopic)).hasSameSizeAs(fromConnect);

    // Both send the contract headers and nothing else.
    assertThat(fromConnect)
        .allSatisfy(w -> assertThat(w.headerNames()).containsExactlyElementsOf(CONTRACT_HEADERS));
    assertThat(fromRelay)
        .allSatisfy(w -> assertThat(w.headerNames()).containsExactlyElementsOf(CONTRACT_HEADERS));

    // Byte-identical, service by service, in each service's order.
    Map<String, List<TopicRecords.Wire>> relayByService = byService(fromRelay);
    Map<String, List<TopicRecords.Wire>> connectByService = byService(fromConnect);
    assertThat(connectByService.keySet()).isEqualTo(relayByService.keySet());
    for (String service : relayByService.keySet()) {
      assertThat(connectByService.get(service))
          .as("records of %s", service)
          .containsExactlyElementsOf(relayByService.get(service));
    }

    // Each service's records in the order they were committed.
    Map<String, List<String>> committedOrder = new LinkedHashMap<>();
    for (AlertEvent e : written) {
      committedOrder
          .computeIfAbsent(e.service(), s -> new ArrayList<>())
          .add(e.eventId().toString());
    }
    committedOrder.forEach(
        (service, order) ->
            assertThat(connectByService.get(service))
                .extracting(w -> w.header(AlertTopic.HEADER_EVENT_ID))
                .as("order of %s", service)
                .containsExactlyElementsOf(order));

    // Every kind was written, so the checks below cover each kind's headers and CloudEvents type.
    assertThat(written.stream().map(AlertEvent::kind).distinct())
        .containsExactlyInAnyOrder(AlertKind.values());

    // Every value is a valid alert event, and the headers say what the payload says.
    Set<String> cloudEventTypes = new HashSet<>();
    for (TopicRecords.Wire w : fromConnect) {
      assertThat(schema.violations(w.value())).as("schema violations of %s", w.value()).isEmpty();
      JsonNode payload = AlertEventJson.mapper().readTree(w.value());
      assertThat(w.key()).isEqualTo(payload.get("service").asText());
      assertThat(w.header(AlertTopic.HEADER_EVENT_ID)).isEqualTo(payload.get("eventId").asText());
      assertThat(w.header(AlertTopic.HEADER_KIND)).isEqualTo(payload.get("kind").asText());
      assertThat(w.header(AlertTopic.HEADER_INCIDENT_ID))
          .isEqualTo(payload.get("incidentId").asText());
      assertThat(w.header(AlertTopic.HEADER_SCHEMA_VERSION))
          .isEqualTo(payload.get("schemaVersion").asText());
      assertThat(w.header(AlertTopic.HEADER_TRACEPARENT))
          .isEqualTo(
              Outbox.traceparent(
                  written.stream()
                      .filter(e -> e.eventId().toString().equals(payload.get("eventId").asText()))
                      .findFirst()
                      .orElseThrow()));
      // And a generic CloudEvents consumer reads it as a binary-mode event of the same facts.
      CloudEvent event = cloudEvent(w);
      assertThat(event.getId()).isEqualTo(payload.get("eventId").asText());
      assertThat(event.getType())
          .isEqualTo(
              AlertTopic.CE_TYPE_PREFIX + payload.get("kind").asText().toLowerCase(Locale.ROOT));
      assertThat(event.getSubject()).isEqualTo(w.key());
      assertThat(event.getTime().toInstant())
          .isEqualTo(Instant.parse(payload.get("occurredAt").asText()));
      assertThat(new String(event.getData().toBytes(), StandardCharsets.UTF_8))
          .isEqualTo(w.value());
      cloudEventTypes.add(event.getType());
    }
    // The SDK read an event of every kind (the relay's records are byte-identical to these).
    assertThat(cloudEventTypes)
        .containsExactlyInAnyOrder(
            Arrays.stream(AlertKind.values())
                .map(AlertTopic::cloudEventType)
                .toArray(String[]::new));
    for (TopicRecords.Wire w : fromRelay) {
      assertThat(schema.violations(w.value())).as("schema violations of %s", w.value()).isEmpty();
    }
  }

  /**
   * The move from the embedded relay to Kafka Connect that the README describes: stop the relay,
   * create the connector stopped on the relay's slot and publication, give it the relay's stored
   * offset, resume it. Rows the relay sent are not sent again; rows written while neither ran are
   * not lost.
   */
  @Test
  @Order(2)
  void movingFromTheRelayToTheConnectorNeitherRepeatsNorLosesEvents() throws Exception {
    // Debezium names its MBeans after the topic prefix, which every relay shares: a second relay in
    // this JVM would wait minutes for the first one's names. The comparison above is done with it.
    relay.close();
    relay = null;
    String slot = "migrate_" + suffix;
    String publication = "migrate_pub_" + suffix;
    String beforeTopic = kafka.uniqueName("migrate-relay");
    String afterTopic = kafka.uniqueName("migrate-connect");
    List<String> services = List.of("migrate-a", "migrate-b", "migrate-c");

    Map<String, String> env = relayEnv();
    env.put("VIGIL_RELAY_SLOT", slot);
    env.put("VIGIL_RELAY_PUBLICATION", publication);
    env.put("VIGIL_TOPIC", beforeTopic);
    env.put("VIGIL_RELAY_OFFSETS_TOPIC", kafka.uniqueName("migrate-relay-offsets"));
    List<AlertEvent> sentByRelay;
    try (RelayService before = RelayService.start(new RelayConfig(new Settings(env)))) {
      await("relay streaming")
          .atMost(Duration.ofMinutes(2))
          .until(() -> before.status().state() == RelayStatus.State.STREAMING);
      sentByRelay = writeEach(services, 0);
      assertThat(readAll(beforeTopic, sentByRelay)).hasSize(sentByRelay.size());
    }
    List<AlertEvent> whileNoneRan = writeEach(services, 1);

    // With exactly-once delivery (the default) the relay's offset is the last record of its
    // offsets topic keyed ["vigil-relay-<slot>", {"server": …}], committed with its last batch.
    String storedOffset = lastStoredOffset(env.get("VIGIL_RELAY_OFFSETS_TOPIC"), slot);

    Map<String, String> values = connectValues();
    values.put("VIGIL_CONNECT_CONNECTOR_NAME", "migrated-" + suffix);
    values.put("VIGIL_CONNECT_SLOT", slot);
    values.put("VIGIL_CONNECT_PUBLICATION", publication);
    // The relay's publication as it is (the outbox and its heartbeat table, inserts only): it
    // covers the WAL the connector resumes in, and "filtered" would try to narrow it.
    values.put("VIGIL_CONNECT_PUBLICATION_AUTOCREATE", "disabled");
    values.put("VIGIL_TOPIC", afterTopic);
    String name = worker.createStopped(Placeholders.fill(Files.readString(CONNECTOR_JSON), values));
    worker.setOffsets(
        name,
        AlertEventJson.mapper().createObjectNode().put("server", CONNECTOR_TOPIC_PREFIX),
        AlertEventJson.mapper().readTree(storedOffset));
    worker.resume(name);
    worker.awaitRunning(name);
    List<AlertEvent> afterTheMove = writeEach(services, 2);

    List<AlertEvent> expected = new ArrayList<>(whileNoneRan);
    expected.addAll(afterTheMove);
    List<TopicRecords.Wire> fromConnect = readAll(afterTopic, expected);
    assertThat(fromConnect)
        .extracting(w -> w.header(AlertTopic.HEADER_EVENT_ID))
        .containsExactlyInAnyOrderElementsOf(
            expected.stream().map(e -> e.eventId().toString()).toList());
  }

  /**
   * The relay's offset for {@code slot} as the README's move reads it: the value of the newest
   * committed record of its offsets topic whose key names the relay's engine.
   */
  private String lastStoredOffset(String offsetsTopic, String slot) throws Exception {
    String keyPrefix = "[\"vigil-relay-" + slot + "\",";
    try (TopicRecords offsets = new TopicRecords(kafka.bootstrapServers(), offsetsTopic)) {
      List<TopicRecords.Wire> stored =
          await("the relay's stored offset")
              .atMost(Duration.ofMinutes(1))
              .until(
                  () -> offsets.poll().stream().filter(w -> w.key().startsWith(keyPrefix)).toList(),
                  found -> !found.isEmpty());
      assertThat(stored.stream().map(TopicRecords.Wire::key).distinct())
          .as("one source partition")
          .hasSize(1);
      return stored.getLast().value();
    }
  }

  /** One FAILED per service, each in its own transaction; {@code round} varies the error text. */
  private List<AlertEvent> writeEach(List<String> services, int round) throws SQLException {
    List<AlertEvent> written = new ArrayList<>();
    try (Connection c = db.connect()) {
      for (String service : services) {
        AlertEvent event =
            AlertEvent.failed(
                UUID.randomUUID(), UUID.randomUUID(), service, Instant.now(), 3, "round " + round);
        Outbox.insertInOneTransaction(c, List.of(event));
        written.add(event);
      }
    }
    return written;
  }

  /**
   * Outbox rows for several services: FAILED, REMINDER, then RECOVERED (every {@link AlertKind}),
   * one row per transaction and several services per transaction, deletes of the first round's rows
   * (retention) in between, error texts that JSON must escape (quotes, backslashes, control
   * characters, non-ASCII, a surrogate pair), and a resolution.
   */
  private List<AlertEvent> writeOutbox() throws SQLException {
    List<String> services = List.of("alpha", "beta-api", "gamma_3", "d", "payments-eu-west-1");
    List<String> errors =
        List.of(
            "connect timed out after 5000 ms",
            "HTTP 503 \"Service Unavailable\" from /health\\ready",
            "line1\nline2\ttabbed\u0001",
            "Zeitüberschreitung — 接続 😀",
            "</script><script>alert(1)</script>");
    List<AlertEvent> written = new ArrayList<>();
    Instant t0 = Instant.parse("2026-11-30T23:00:00.000123Z");
    try (Connection c = db.connect()) {
      for (int round = 0; round < 3; round++) {
        List<AlertEvent> failedTogether = new ArrayList<>();
        for (int i = 0; i < services.size(); i++) {
          failedTogether.add(
              AlertEvent.failed(
                  UUID.randomUUID(),
                  UUID.randomUUID(),
                  services.get(i),
                  t0.plusSeconds(round * 600L + i),
                  3 + round,
                  errors.get((i + round) % errors.size())));
        }
        Outbox.insertInOneTransaction(c, failedTogether);
        written.addAll(failedTogether);
        for (AlertEvent failed : failedTogether) {
          AlertEvent reminder =
              AlertEvent.reminder(
                  UUID.randomUUID(),
                  failed.incidentId(),
                  failed.service(),
                  failed.occurredAt().plusSeconds(60).plusNanos(7),
                  failed.consecutiveFailures() + 2,
                  failed.lastError(),
                  failed.occurredAt());
          Outbox.insertInOneTransaction(c, List.of(reminder));
          written.add(reminder);
          AlertEvent recovered =
              AlertEvent.recovered(
                  UUID.randomUUID(),
                  failed.incidentId(),
                  failed.service(),
                  failed.occurredAt().plusSeconds(95).plusNanos(42),
                  failed.consecutiveFailures() + 1,
                  failed.lastError(),
                  failed.occurredAt());
          if (failed.service().equals("d")) {
            recovered = recovered.withResolution(AlertEvent.RESOLUTION_TARGET_DISABLED);
          }
          Outbox.insertInOneTransaction(c, List.of(recovered));
          written.add(recovered);
        }
        if (round == 0) {
          // The monitor's retention deletes old rows. The connector's publication carries deletes
          // (the relay's does not); the EventRouter must drop them, not publish anything for them.
          Outbox.delete(c, written);
        }
      }
    }
    return written;
  }

  /**
   * The records of {@code topic} whose key is a service of {@code written} (other tests of this
   * class write other services to the same outbox), once there are at least as many as written.
   */
  private List<TopicRecords.Wire> readAll(String topic, List<AlertEvent> written) {
    Set<String> services = written.stream().map(AlertEvent::service).collect(Collectors.toSet());
    try (TopicRecords records = new TopicRecords(kafka.bootstrapServers(), topic)) {
      await("all " + written.size() + " records on " + topic)
          .atMost(Duration.ofMinutes(2))
          .until(() -> ofServices(records.poll(), services).size() >= written.size());
    }
    // Anything more than written (a duplicate) committed by now is read too.
    return ofServices(
        kafka.readCommitted(topic).stream().map(TopicRecords::wire).toList(), services);
  }

  private static List<TopicRecords.Wire> ofServices(
      List<TopicRecords.Wire> records, Set<String> services) {
    return records.stream().filter(w -> services.contains(w.key())).toList();
  }

  private static Map<String, List<TopicRecords.Wire>> byService(List<TopicRecords.Wire> records) {
    Map<String, List<TopicRecords.Wire>> byService = new HashMap<>();
    for (TopicRecords.Wire w : records) {
      byService.computeIfAbsent(w.key(), k -> new ArrayList<>()).add(w);
    }
    return byService;
  }

  private boolean slotExists(String slot) throws SQLException {
    try (Connection c = db.connect();
        PreparedStatement s =
            c.prepareStatement(
                "select exists (select 1 from pg_replication_slots where slot_name = ?)")) {
      s.setString(1, slot);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  private Map<String, String> relayEnv() {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", db.jdbcUrl());
    env.put("VIGIL_DB_USER", db.user());
    env.put("VIGIL_DB_PASSWORD", db.password());
    env.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    env.put("VIGIL_TOPIC", relayTopic);
    env.put("VIGIL_TOPIC_PARTITIONS", String.valueOf(PARTITIONS));
    env.put("VIGIL_TOPIC_REPLICATION_FACTOR", "1");
    env.put("VIGIL_RELAY_SLOT", "contract_relay_" + suffix);
    env.put("VIGIL_RELAY_PUBLICATION", "contract_relay_pub_" + suffix);
    env.put("VIGIL_RELAY_HEARTBEAT_INTERVAL", "1s");
    env.put("VIGIL_HTTP_PORT", "0");
    env.put("VIGIL_INSTANCE_ID", "contract-relay");
    return env;
  }

  /** The placeholders of the shipped worker properties and connector JSON, for this test. */
  private Map<String, String> connectValues() throws Exception {
    Path secrets = Files.createDirectories(Path.of("target", "connect-secrets-" + suffix));
    Path password = secrets.resolve("db_password");
    Files.writeString(password, db.password(), StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(password, PosixFilePermissions.fromString("rw-------"));
    Map<String, String> values = new HashMap<>();
    values.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    values.put("VIGIL_CONNECT_GROUP_ID", "vigil-connect-" + suffix);
    values.put("VIGIL_CONNECT_REST_HOST", "127.0.0.1");
    values.put("VIGIL_CONNECT_REST_PORT", String.valueOf(FreePorts.pick()));
    values.put("VIGIL_CONNECT_ADVERTISED_HOST", "127.0.0.1");
    values.put("VIGIL_CONNECT_REPLICATION_FACTOR", "1");
    values.put("VIGIL_CONNECT_SECRETS_DIR", secrets.toAbsolutePath().toString());
    // Plugins come from the test class path; plugin.path must name a directory, an empty one here.
    values.put(
        "VIGIL_CONNECT_PLUGIN_PATH",
        Files.createDirectories(Path.of("target", "connect-plugins")).toAbsolutePath().toString());
    values.put("VIGIL_CONNECT_CONNECTOR_NAME", "vigil-outbox-" + suffix);
    values.put("VIGIL_DB_HOST", db.host());
    values.put("VIGIL_DB_PORT", String.valueOf(db.port()));
    values.put("VIGIL_DB_NAME", db.name());
    values.put("VIGIL_DB_USER", db.user());
    values.put("VIGIL_DB_SSLMODE", "disable");
    values.put("VIGIL_CONNECT_SLOT", connectSlot);
    values.put("VIGIL_CONNECT_PUBLICATION", "contract_connect_pub_" + suffix);
    values.put("VIGIL_CONNECT_PUBLICATION_AUTOCREATE", "filtered");
    values.put("VIGIL_CONNECT_SNAPSHOT_MODE", "no_data");
    values.put("VIGIL_CONNECT_HEARTBEAT_INTERVAL_MS", "1000");
    values.put("VIGIL_TOPIC", connectTopic);
    values.put("VIGIL_TOPIC_PARTITIONS", String.valueOf(PARTITIONS));
    values.put("VIGIL_TOPIC_REPLICATION_FACTOR", "1");
    return values;
  }

  /** The record as the CloudEvents SDK's Kafka binding reads it (binary mode: ce_* headers). */
  private static CloudEvent cloudEvent(TopicRecords.Wire w) {
    RecordHeaders headers = new RecordHeaders();
    for (String name : w.headerNames()) {
      headers.add(name, w.header(name).getBytes(StandardCharsets.UTF_8));
    }
    return KafkaMessageFactory.createReader(headers, w.value().getBytes(StandardCharsets.UTF_8))
        .toEvent();
  }
}
