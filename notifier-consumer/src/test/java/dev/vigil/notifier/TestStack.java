package dev.vigil.notifier;

import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertTopic;
import dev.vigil.contract.webhook.WebhookSecret;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.vendor.FakeVendor;
import dev.vigil.kit.Settings;
import dev.vigil.receiver.ReceivedNotification;
import dev.vigil.receiver.ReceivedRequest;
import dev.vigil.receiver.ReceiverConfig;
import dev.vigil.receiver.ReferenceReceiver;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A reference receiver and a notifier on the real PostgreSQL and Kafka, with fast retries and
 * polling but generous timeouts and lease, plus helpers to produce records in the relay's contract
 * and to query both databases.
 */
final class TestStack implements AutoCloseable {
  static final String SECRET = WebhookSecret.generate();
  static final String ADMIN_TOKEN = "admin-" + UUID.randomUUID();

  final TestDatabase db;
  final TestKafka kafka;
  final String topic;
  final String group;
  final ReferenceReceiver receiver;
  final List<ReceivedNotification> notifications = new CopyOnWriteArrayList<>();
  private final Map<String, String> overrides;
  private final KafkaProducer<byte[], byte[]> producer;
  NotifierService notifier;
  private final List<NotifierService> more = new ArrayList<>();

  private TestStack(TestDatabase db, TestKafka kafka, Map<String, String> overrides) {
    this.db = db;
    this.kafka = kafka;
    this.overrides = overrides;
    this.topic = kafka.uniqueName("alerts");
    this.group = kafka.uniqueName("notifier");
    kafka.createTopic(topic, 3);
    this.receiver =
        ReferenceReceiver.start(
            ReceiverConfig.onAnyPort(db.jdbcUrl(), db.user(), db.password(), SECRET));
    receiver.onNotification(notifications::add);
    this.producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG,
                "all"),
            new ByteArraySerializer(),
            new ByteArraySerializer());
  }

  /** Receiver only; start the notifier with {@link #startNotifier()} or in another process. */
  static TestStack withoutNotifier(
      TestDatabase db, TestKafka kafka, Map<String, String> overrides) {
    return new TestStack(db, kafka, overrides);
  }

  /** Receiver and notifier; {@code overrides} replace the fast test defaults. */
  static TestStack start(TestDatabase db, TestKafka kafka, Map<String, String> overrides) {
    TestStack stack = new TestStack(db, kafka, overrides);
    stack.startNotifier();
    return stack;
  }

  Map<String, String> notifierSettings() {
    Map<String, String> settings = new HashMap<>();
    settings.put("VIGIL_DB_URL", db.jdbcUrl());
    settings.put("VIGIL_DB_USER", db.user());
    settings.put("VIGIL_HTTP_PORT", "0");
    settings.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    settings.put("VIGIL_TOPIC", topic);
    settings.put("VIGIL_NOTIFIER_GROUP_ID", group);
    settings.put("VIGIL_WEBHOOK_URL", "http://localhost:" + receiver.port() + "/hooks/vigil");
    settings.put("VIGIL_WEBHOOK_ALLOW_HTTP", "true");
    settings.put("VIGIL_WEBHOOK_SECRETS", SECRET);
    settings.put("VIGIL_NOTIFIER_ADMIN_TOKEN", ADMIN_TOKEN);
    settings.put("VIGIL_NOTIFIER_WORKERS", "2");
    settings.put("VIGIL_NOTIFIER_BACKOFF_INITIAL", "20ms");
    settings.put("VIGIL_NOTIFIER_BACKOFF_MAX", "100ms");
    settings.put("VIGIL_NOTIFIER_POLL_INTERVAL", "20ms");
    // Far longer than any answer takes, even on a loaded machine: a slow answer must not turn into
    // an extra attempt, since tests count requests and attempts. Tests of timeouts or lease expiry
    // set their own (the lease must stay longer than the read timeout).
    settings.put("VIGIL_WEBHOOK_READ_TIMEOUT", "60s");
    settings.put("VIGIL_WEBHOOK_CONNECT_TIMEOUT", "10s");
    settings.put("VIGIL_NOTIFIER_LEASE", "120s");
    settings.put("VIGIL_NOTIFIER_HEARTBEAT", "200ms");
    settings.putAll(overrides);
    return settings;
  }

  void startNotifier() {
    notifier = NotifierService.start(new NotifierConfig(new Settings(notifierSettings())));
  }

  /**
   * Another notifier instance on the same database, topic and consumer group, with {@code extra}
   * settings on top of this stack's; closed with the stack unless stopped before.
   */
  NotifierService startInstance(Map<String, String> extra) {
    Map<String, String> settings = notifierSettings();
    settings.putAll(extra);
    NotifierService instance = NotifierService.start(new NotifierConfig(new Settings(settings)));
    more.add(instance);
    return instance;
  }

  /** Stops an instance started by {@link #startInstance} (a clean stop). */
  void stopInstance(NotifierService instance) {
    more.remove(instance);
    instance.close();
  }

  void stopNotifier() {
    if (notifier != null) {
      notifier.close();
      notifier = null;
    }
  }

  static AlertEvent failed(String service) {
    return AlertEvent.failed(
        UUID.randomUUID(), UUID.randomUUID(), service, Instant.now(), 3, "connect timed out");
  }

  static AlertEvent recovered(AlertEvent failed) {
    return AlertEvent.recovered(
        UUID.randomUUID(),
        failed.incidentId(),
        failed.service(),
        Instant.now(),
        3,
        "connect timed out",
        failed.occurredAt());
  }

  /** Produces {@code event} exactly as the relay does. */
  void produce(AlertEvent event) {
    produce(event.service(), AlertEventJson.write(event).getBytes(StandardCharsets.UTF_8), event);
  }

  void produce(String key, byte[] value, AlertEvent headersFrom) {
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(
            topic, key == null ? null : key.getBytes(StandardCharsets.UTF_8), value);
    if (headersFrom != null) {
      record.headers().add(AlertTopic.HEADER_EVENT_ID, bytes(headersFrom.eventId().toString()));
      record.headers().add(AlertTopic.HEADER_KIND, bytes(headersFrom.kind().name()));
      record
          .headers()
          .add(AlertTopic.HEADER_INCIDENT_ID, bytes(headersFrom.incidentId().toString()));
      record.headers().add(AlertTopic.HEADER_SCHEMA_VERSION, bytes("1"));
    }
    try {
      producer.send(record).get();
    } catch (Exception e) {
      throw new AssertionError("produce failed", e);
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** Requests the receiver saw for one webhook id. */
  List<ReceivedRequest> requestsFor(UUID eventId) {
    List<ReceivedRequest> result = new ArrayList<>();
    for (ReceivedRequest request : receiver.requests()) {
      if (eventId.toString().equals(request.webhookId())) {
        result.add(request);
      }
    }
    return result;
  }

  String status(UUID eventId) {
    return scalar("select status from notifier_receipt where event_id = '" + eventId + "'");
  }

  /** The status of {@code event}'s delivery on {@code channel} ("null" when it has none). */
  String status(AlertEvent event, String channel) {
    return String.valueOf(
        scalar(
            "select status from notifier_receipt where event_id = '"
                + event.eventId()
                + "' and channel = '"
                + channel
                + "'"));
  }

  /** Attempts of the event's receipt for {@code channel}; 0 while intake has not stored it yet. */
  long attempts(AlertEvent event, String channel) {
    return count(
        "select coalesce((select attempts from notifier_receipt where event_id = '"
            + event.eventId()
            + "' and channel = '"
            + channel
            + "'), 0)");
  }

  /**
   * Settings of an instance with one Slack channel, {@code team}, for the services {@code pay*}
   * (and the signed webhook), one message per transition (grouping off).
   */
  static Map<String, String> slackForPay(FakeVendor slack) {
    return slackForPay(slack, "off");
  }

  /** As above, with the Slack channel's {@code group} setting (e.g. {@code {wait: 1s}}). */
  static Map<String, String> slackForPay(FakeVendor slack, String group) {
    return Map.of(
        "VIGIL_NOTIFIER_ROUTES",
        """
        channels:
          team: {type: slack, url: "%s", group: %s}
        routes:
          - {match: pay*, channels: [team, webhook]}
        """
            .formatted(slack.url("/services/T0/B0/secret"), group));
  }

  void awaitStatus(UUID eventId, String status) {
    await().atMost(Duration.ofSeconds(30)).until(() -> status.equals(status(eventId)));
  }

  long count(String sql) {
    return Long.parseLong(scalar(sql));
  }

  String scalar(String sql) {
    try (Connection connection = db.connect();
        PreparedStatement statement = connection.prepareStatement(sql);
        ResultSet rows = statement.executeQuery()) {
      return rows.next() ? rows.getString(1) : null;
    } catch (SQLException e) {
      throw new AssertionError(sql, e);
    }
  }

  /** Runs one data-changing statement; returns the number of rows it changed. */
  int update(String sql) {
    try (Connection connection = db.connect();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      return statement.executeUpdate();
    } catch (SQLException e) {
      throw new AssertionError(sql, e);
    }
  }

  List<String> column(String sql) {
    try (Connection connection = db.connect();
        PreparedStatement statement = connection.prepareStatement(sql);
        ResultSet rows = statement.executeQuery()) {
      List<String> values = new ArrayList<>();
      while (rows.next()) {
        values.add(rows.getString(1));
      }
      return values;
    } catch (SQLException e) {
      throw new AssertionError(sql, e);
    }
  }

  @Override
  public void close() {
    try {
      stopNotifier();
      List.copyOf(more).forEach(this::stopInstance);
    } finally {
      producer.close();
      receiver.close();
    }
  }
}
