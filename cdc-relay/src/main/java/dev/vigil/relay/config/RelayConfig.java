package dev.vigil.relay.config;

import dev.vigil.contract.AlertTopic;
import dev.vigil.kit.Redact;
import dev.vigil.kit.Setting;
import dev.vigil.kit.Settings;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Typed configuration of the relay.
 *
 * <p>The database is given as one JDBC URL ({@code VIGIL_DB_URL =
 * jdbc:postgresql://host:port/database}, single host, query parameters ignored for the replication
 * connection); Debezium's host, port and database name are derived from it. Offsets are stored in
 * the same database (table {@code relay_offsets}, one namespace per slot), so a standby on another
 * host resumes where the active relay stopped.
 *
 * @param dbUrl JDBC URL of the PostgreSQL database holding the outbox
 * @param dbUser database user; needs the REPLICATION attribute and ownership of the outbox table
 * @param dbPassword database password (never logged)
 * @param kafkaBootstrapServers Kafka bootstrap servers
 * @param topic topic the alert events go to
 * @param topicPartitions partitions when the relay creates the topic
 * @param topicReplicationFactor replication factor when the relay creates the topic
 * @param slotName logical replication slot (also the namespace of stored offsets and the lock)
 * @param publicationName publication covering the outbox and heartbeat tables, inserts only
 * @param snapshotMode Debezium snapshot mode: {@code no_data} (default: no replay of history) or
 *     {@code initial}
 * @param heartbeatInterval how often the relay writes a heartbeat row so the slot advances
 * @param pollInterval how long the engine waits for new changes before polling again
 * @param producerLinger Kafka producer linger
 * @param offsetFlushInterval minimum time between offset flushes (0 = after every batch)
 * @param standbyPollInterval how often a standby tries to take the lock
 * @param maxRetryBackoff upper bound of the restart backoff after a failure
 * @param lagSampleInterval how often the slot lag is measured
 * @param httpPort HTTP port of /health and /metrics (0 = any free port)
 * @param instanceId name of this instance in logs, health and the Kafka client id
 */
public record RelayConfig(
    String dbUrl,
    String dbUser,
    String dbPassword,
    String kafkaBootstrapServers,
    String topic,
    int topicPartitions,
    int topicReplicationFactor,
    String slotName,
    String publicationName,
    String snapshotMode,
    Duration heartbeatInterval,
    Duration pollInterval,
    Duration producerLinger,
    Duration offsetFlushInterval,
    Duration standbyPollInterval,
    Duration maxRetryBackoff,
    Duration lagSampleInterval,
    int httpPort,
    String instanceId) {

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
  private static final Pattern JDBC_URL =
      Pattern.compile("jdbc:postgresql://[^/:?,]+(:\\d+)?/[^/?]+(\\?.*)?");

  static final Setting<String> DB_URL =
      Setting.string(
          "VIGIL_DB_URL", null, "JDBC URL of the outbox database: jdbc:postgresql://host:port/db");
  static final Setting<String> DB_USER =
      Setting.string("VIGIL_DB_USER", null, "Database user with the REPLICATION attribute");
  static final Setting<String> DB_PASSWORD =
      Setting.secret("VIGIL_DB_PASSWORD", "", "Database password");
  static final Setting<String> KAFKA =
      Setting.string("VIGIL_KAFKA_BOOTSTRAP_SERVERS", null, "Kafka bootstrap servers");
  static final Setting<String> TOPIC =
      Setting.string("VIGIL_TOPIC", AlertTopic.DEFAULT_TOPIC, "Topic of alert events");
  static final Setting<Integer> TOPIC_PARTITIONS =
      Setting.integer(
          "VIGIL_TOPIC_PARTITIONS", 6, 1, 10_000, "Partitions if the relay creates the topic");
  static final Setting<Integer> TOPIC_REPLICATION =
      Setting.integer(
          "VIGIL_TOPIC_REPLICATION_FACTOR",
          1,
          1,
          32,
          "Replication factor if the relay creates the topic");
  static final Setting<String> SLOT =
      Setting.string(
          "VIGIL_RELAY_SLOT_NAME",
          "vigil_relay",
          "Logical replication slot; also names the stored offsets and the standby lock");
  static final Setting<String> PUBLICATION =
      Setting.string(
          "VIGIL_RELAY_PUBLICATION",
          "vigil_outbox",
          "Publication of the outbox and heartbeat tables (inserts only), created by the relay");
  static final Setting<String> SNAPSHOT_MODE =
      Setting.string(
          "VIGIL_RELAY_SNAPSHOT_MODE",
          "no_data",
          "no_data: a first start streams only new rows; initial: also replays existing rows");
  static final Setting<Duration> HEARTBEAT =
      Setting.duration(
          "VIGIL_RELAY_HEARTBEAT_INTERVAL",
          "10s",
          Duration.ofMillis(100),
          Duration.ofHours(1),
          "How often a heartbeat row is written so an idle outbox cannot hold WAL back");
  static final Setting<Duration> POLL =
      Setting.duration(
          "VIGIL_RELAY_POLL_INTERVAL",
          "5ms",
          Duration.ofMillis(1),
          Duration.ofSeconds(5),
          "How long the engine waits before looking for new changes again");
  static final Setting<Duration> LINGER =
      Setting.duration(
          "VIGIL_RELAY_PRODUCER_LINGER",
          "1ms",
          Duration.ZERO,
          Duration.ofSeconds(1),
          "Kafka producer linger; batches still form under load");
  static final Setting<Duration> OFFSET_FLUSH =
      Setting.duration(
          "VIGIL_RELAY_OFFSET_FLUSH_INTERVAL",
          "0ms",
          Duration.ZERO,
          Duration.ofMinutes(5),
          "Minimum time between stores of offsets in relay_offsets (0 = after every batch)");
  static final Setting<Duration> STANDBY_POLL =
      Setting.duration(
          "VIGIL_RELAY_STANDBY_POLL_INTERVAL",
          "1s",
          Duration.ofMillis(50),
          Duration.ofMinutes(1),
          "How often a standby tries to become the active relay");
  static final Setting<Duration> MAX_BACKOFF =
      Setting.duration(
          "VIGIL_RELAY_MAX_RETRY_BACKOFF",
          "5s",
          Duration.ofMillis(100),
          Duration.ofMinutes(10),
          "Upper bound of the backoff between restarts after a failure; it bounds how long after"
              + " PostgreSQL or Kafka is back the relay notices");
  static final Setting<Duration> LAG_SAMPLE =
      Setting.duration(
          "VIGIL_RELAY_LAG_SAMPLE_INTERVAL",
          "5s",
          Duration.ofMillis(100),
          Duration.ofMinutes(5),
          "How often the replication slot lag is measured");
  static final Setting<Integer> HTTP_PORT =
      Setting.integer("VIGIL_HTTP_PORT", 8082, 0, 65_535, "Port of /health and /metrics");
  static final Setting<String> INSTANCE =
      Setting.string(
          "VIGIL_RELAY_INSTANCE_ID", "", "Name of this instance (default: host name and pid)");

  /** Every setting of the relay, for the configuration reference. */
  public static final List<Setting<?>> SETTINGS =
      List.of(
          DB_URL,
          DB_USER,
          DB_PASSWORD,
          KAFKA,
          TOPIC,
          TOPIC_PARTITIONS,
          TOPIC_REPLICATION,
          SLOT,
          PUBLICATION,
          SNAPSHOT_MODE,
          HEARTBEAT,
          POLL,
          LINGER,
          OFFSET_FLUSH,
          STANDBY_POLL,
          MAX_BACKOFF,
          LAG_SAMPLE,
          HTTP_PORT,
          INSTANCE);

  public RelayConfig {
    Objects.requireNonNull(dbUser, "dbUser is required");
    Objects.requireNonNull(kafkaBootstrapServers, "kafkaBootstrapServers is required");
    Objects.requireNonNull(topic, "topic is required");
    Objects.requireNonNull(heartbeatInterval, "heartbeatInterval is required");
    Objects.requireNonNull(pollInterval, "pollInterval is required");
    Objects.requireNonNull(producerLinger, "producerLinger is required");
    Objects.requireNonNull(offsetFlushInterval, "offsetFlushInterval is required");
    Objects.requireNonNull(standbyPollInterval, "standbyPollInterval is required");
    Objects.requireNonNull(maxRetryBackoff, "maxRetryBackoff is required");
    Objects.requireNonNull(lagSampleInterval, "lagSampleInterval is required");
    if (dbUrl == null || !JDBC_URL.matcher(dbUrl).matches()) {
      throw new IllegalArgumentException(
          "dbUrl must look like jdbc:postgresql://host:port/database, was " + dbUrl);
    }
    requireIdentifier("slotName", slotName);
    requireIdentifier("publicationName", publicationName);
    if (!"no_data".equals(snapshotMode) && !"initial".equals(snapshotMode)) {
      throw new IllegalArgumentException(
          "snapshotMode must be no_data or initial, was " + snapshotMode);
    }
    if (topicPartitions < 1 || topicReplicationFactor < 1) {
      throw new IllegalArgumentException("topic partitions and replication factor must be >= 1");
    }
    dbPassword = dbPassword == null ? "" : dbPassword;
    instanceId =
        instanceId == null || instanceId.isBlank()
            ? hostName() + "-" + ProcessHandle.current().pid()
            : instanceId;
  }

  /**
   * Reads and validates every relay setting.
   *
   * @throws dev.vigil.kit.ConfigException listing every missing or invalid key
   */
  /** Every setting except the password, which is never shown. */
  @Override
  public String toString() {
    return "RelayConfig[dbUrl=%s, dbUser=%s, dbPassword=<hidden>, kafka=%s, topic=%s, slot=%s, publication=%s, snapshotMode=%s, httpPort=%d, instanceId=%s]"
        .formatted(
            Redact.withoutQuery(dbUrl),
            dbUser,
            kafkaBootstrapServers,
            topic,
            slotName,
            publicationName,
            snapshotMode,
            httpPort,
            instanceId);
  }

  public static RelayConfig from(Settings settings) {
    String url = settings.get(DB_URL);
    String slot = settings.get(SLOT);
    String publication = settings.get(PUBLICATION);
    String snapshot = settings.get(SNAPSHOT_MODE);
    if (url != null && !JDBC_URL.matcher(url).matches()) {
      settings.problem("VIGIL_DB_URL must look like jdbc:postgresql://host:port/database");
    }
    if (slot != null && !IDENTIFIER.matcher(slot).matches()) {
      settings.problem("VIGIL_RELAY_SLOT_NAME must match " + IDENTIFIER.pattern());
    }
    if (publication != null && !IDENTIFIER.matcher(publication).matches()) {
      settings.problem("VIGIL_RELAY_PUBLICATION must match " + IDENTIFIER.pattern());
    }
    if (snapshot != null && !snapshot.equals("no_data") && !snapshot.equals("initial")) {
      settings.problem("VIGIL_RELAY_SNAPSHOT_MODE must be no_data or initial");
    }
    RelayConfigValues values =
        new RelayConfigValues(
            url,
            settings.get(DB_USER),
            settings.get(DB_PASSWORD),
            settings.get(KAFKA),
            settings.get(TOPIC),
            settings.get(TOPIC_PARTITIONS),
            settings.get(TOPIC_REPLICATION),
            slot,
            publication,
            snapshot,
            settings.get(HEARTBEAT),
            settings.get(POLL),
            settings.get(LINGER),
            settings.get(OFFSET_FLUSH),
            settings.get(STANDBY_POLL),
            settings.get(MAX_BACKOFF),
            settings.get(LAG_SAMPLE),
            settings.get(HTTP_PORT),
            settings.get(INSTANCE));
    settings.validate();
    return values.toConfig();
  }

  /** Host of the database, from {@link #dbUrl()}. */
  public String dbHost() {
    return jdbcUri().getHost();
  }

  /** Port of the database, from {@link #dbUrl()} (5432 when absent). */
  public int dbPort() {
    int port = jdbcUri().getPort();
    return port == -1 ? 5432 : port;
  }

  /** Database name, from {@link #dbUrl()}. */
  public String dbName() {
    return jdbcUri().getPath().substring(1);
  }

  private URI jdbcUri() {
    return URI.create(dbUrl.substring("jdbc:".length()));
  }

  private static void requireIdentifier(String name, String value) {
    if (value == null || !IDENTIFIER.matcher(value).matches()) {
      throw new IllegalArgumentException(
          name + " must match " + IDENTIFIER.pattern() + ", was " + value);
    }
  }

  private static String hostName() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      return "relay";
    }
  }

  /** Raw values read before validation, so one start-up attempt reports every problem. */
  private record RelayConfigValues(
      String dbUrl,
      String dbUser,
      String dbPassword,
      String kafka,
      String topic,
      Integer partitions,
      Integer replication,
      String slot,
      String publication,
      String snapshot,
      Duration heartbeat,
      Duration poll,
      Duration linger,
      Duration offsetFlush,
      Duration standbyPoll,
      Duration maxBackoff,
      Duration lagSample,
      Integer httpPort,
      String instance) {
    RelayConfig toConfig() {
      return new RelayConfig(
          dbUrl,
          dbUser,
          dbPassword,
          kafka,
          topic,
          partitions,
          replication,
          slot,
          publication,
          snapshot,
          heartbeat,
          poll,
          linger,
          offsetFlush,
          standbyPoll,
          maxBackoff,
          lagSample,
          httpPort,
          instance);
    }
  }
}
