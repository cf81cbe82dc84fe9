package dev.vigil.relay.config;

import static dev.vigil.kit.CommonSettings.DB_PASSWORD;
import static dev.vigil.kit.CommonSettings.DB_URL;
import static dev.vigil.kit.CommonSettings.DB_USER;
import static dev.vigil.kit.CommonSettings.HTTP_PORT;
import static dev.vigil.kit.CommonSettings.INSTANCE_ID;
import static dev.vigil.kit.CommonSettings.KAFKA_BOOTSTRAP_SERVERS;
import static dev.vigil.kit.CommonSettings.TOPIC;

import dev.vigil.kit.ConfigDef;
import dev.vigil.kit.ServiceConfig;
import dev.vigil.kit.Setting;
import dev.vigil.kit.Settings;
import dev.vigil.kit.db.PostgresTls;
import dev.vigil.kit.kafka.KafkaClientProperties;
import dev.vigil.kit.kafka.KafkaSettings;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Typed configuration of the relay, read and validated once from the environment.
 *
 * <p>The database is given as one JDBC URL ({@code VIGIL_DB_URL}, single host, query parameters
 * ignored for the replication connection); Debezium's host, port and database name are derived from
 * it ({@link #dbHost()}, {@link #dbPort()}, {@link #dbName()}). Offsets are stored in the same
 * database (table {@code relay_offsets}, one namespace per slot), so a standby on another host
 * resumes where the active relay stopped.
 */
public final class RelayConfig extends ServiceConfig {
  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
  private static final String IDENTIFIER_SHAPE = "a PostgreSQL identifier [a-z_][a-z0-9_]{0,62}";

  public static final Setting<Integer> TOPIC_PARTITIONS =
      Setting.integer("VIGIL_TOPIC_PARTITIONS", 6)
          .range("1", "10000")
          .doc("Partitions if the relay creates the topic.");
  public static final Setting<Integer> TOPIC_REPLICATION_FACTOR =
      Setting.integer("VIGIL_TOPIC_REPLICATION_FACTOR", 1)
          .range("1", "32")
          .doc("Replication factor if the relay creates the topic.");
  public static final Setting<String> SLOT =
      Setting.string("VIGIL_RELAY_SLOT", "vigil_relay")
          .matching(IDENTIFIER, IDENTIFIER_SHAPE)
          .doc("Logical replication slot; also names the stored offsets and the standby lock.");
  public static final Setting<Boolean> SLOT_FAILOVER =
      Setting.bool("VIGIL_RELAY_SLOT_FAILOVER", true)
          .doc(
              "Make the slot a failover slot (PostgreSQL 17+ primary), synchronised to standbys with"
                  + " sync_replication_slots=on, so it survives a failover; ignored on older servers.");
  public static final Setting<String> PUBLICATION =
      Setting.string("VIGIL_RELAY_PUBLICATION", "vigil_outbox")
          .matching(IDENTIFIER, IDENTIFIER_SHAPE)
          .doc("Publication of the outbox and heartbeat tables (inserts only), made by the relay.");
  public static final Setting<String> SNAPSHOT_MODE =
      Setting.string("VIGIL_RELAY_SNAPSHOT_MODE", "no_data")
          .oneOf("no_data", "initial")
          .doc(
              "no_data: a first start streams only new rows; initial: also replays existing rows.");
  public static final Setting<Duration> HEARTBEAT_INTERVAL =
      Setting.duration("VIGIL_RELAY_HEARTBEAT_INTERVAL", "10s")
          .range("100ms", "1h")
          .doc("How often a heartbeat row is written so an idle outbox cannot hold WAL back.");
  public static final Setting<Duration> POLL_INTERVAL =
      Setting.duration("VIGIL_RELAY_POLL_INTERVAL", "5ms")
          .range("1ms", "5s")
          .doc(
              "How long the engine waits before looking for new changes again; each wait costs up"
                  + " to 1 ms of busy CPU in Debezium (idle: ~0.15 cores at 5ms, ~0.02 at 50ms),"
                  + " a longer one adds latency.");
  public static final Setting<Duration> PRODUCER_LINGER =
      Setting.duration("VIGIL_RELAY_PRODUCER_LINGER", "1ms")
          .range("0ms", "1s")
          .doc("Kafka producer linger; batches still form under load.");
  public static final Setting<Duration> OFFSET_FLUSH_INTERVAL =
      Setting.duration("VIGIL_RELAY_OFFSET_FLUSH_INTERVAL", "0ms")
          .range("0ms", "5m")
          .doc("Minimum time between stores of offsets in relay_offsets (0 = after every batch).");

  /** {@link #DELIVERY} value: each batch is one Kafka transaction with its offsets. */
  public static final String EXACTLY_ONCE = "exactly-once";

  /** {@link #DELIVERY} value: idempotent producer, offsets in PostgreSQL after Kafka's acks. */
  public static final String AT_LEAST_ONCE = "at-least-once";

  public static final Setting<String> DELIVERY =
      Setting.string("VIGIL_RELAY_DELIVERY", EXACTLY_ONCE)
          .oneOf(EXACTLY_ONCE, AT_LEAST_ONCE)
          .doc(
              "exactly-once: each batch and its offsets are one Kafka transaction (read_committed"
                  + " consumers see every event once; needs a broker with transactions);"
                  + " at-least-once: offsets in relay_offsets, a restart may repeat a tail.");
  public static final Setting<String> OFFSETS_TOPIC =
      Setting.string("VIGIL_RELAY_OFFSETS_TOPIC", "vigil.relay.offsets")
          .matching(Pattern.compile("[a-zA-Z0-9._-]{1,249}"), "a Kafka topic name")
          .doc(
              "Compacted topic of the relay's offsets with exactly-once delivery (created if"
                  + " missing; written in each batch's transaction).");
  public static final Setting<Duration> TRANSACTION_TIMEOUT =
      Setting.duration("VIGIL_RELAY_TRANSACTION_TIMEOUT", "60s")
          .range("1s", "24h")
          .doc(
              "Kafka transaction timeout with exactly-once delivery (transaction.timeout.ms; at"
                  + " most the broker's transaction.max.timeout.ms, 15m by default): how long one"
                  + " PostgreSQL transaction may take to relay as one Kafka transaction, and how"
                  + " long read_committed readers wait for the open transaction of a relay that"
                  + " died. A PostgreSQL transaction that Kafka ends for it twice is then"
                  + " published in chunks, at least once.");
  public static final Setting<Boolean> DEBEZIUM_HEADERS =
      Setting.bool("VIGIL_RELAY_DEBEZIUM_HEADERS", false)
          .doc(
              "Also put Debezium's __debezium.context.* headers on every record (not part of the"
                  + " topic contract).");
  public static final Setting<Duration> STANDBY_POLL_INTERVAL =
      Setting.duration("VIGIL_RELAY_STANDBY_POLL_INTERVAL", "1s")
          .range("50ms", "1m")
          .doc("How often a standby tries to become the active relay.");
  public static final Setting<Duration> LEASE =
      Setting.duration("VIGIL_RELAY_LEASE", "5s")
          .range("1s", "5m")
          .doc(
              "Leadership lease of the active relay, renewed every third of it on the database's"
                  + " clock; a standby takes over from an active relay that stopped renewing it"
                  + " (frozen, paused, cut off) once it expired, ending that relay's sessions.");
  public static final Setting<Duration> MAX_RETRY_BACKOFF =
      Setting.duration("VIGIL_RELAY_MAX_RETRY_BACKOFF", "5s")
          .range("100ms", "10m")
          .doc(
              "Upper bound of the backoff between restarts after a failure; it bounds how long"
                  + " after PostgreSQL or Kafka is back the relay notices.");
  public static final Setting<Duration> LAG_SAMPLE_INTERVAL =
      Setting.duration("VIGIL_RELAY_LAG_SAMPLE_INTERVAL", "5s")
          .range("100ms", "5m")
          .doc("How often the replication slot lag is measured.");

  public static final Setting<String> DB_SSLPASSWORD =
      Setting.secret("VIGIL_DB_SSLPASSWORD", "")
          .doc(
              "Password of the encrypted client key that VIGIL_DB_URL's sslkey names (pgjdbc"
                  + " sslpassword), for every connection of the relay, Debezium's and the"
                  + " at-least-once offset store's included; empty for an unencrypted key. Never a"
                  + " URL parameter: the relay refuses a VIGIL_DB_URL with password or"
                  + " sslpassword.");

  /** URL parameters that are secrets: given in their own settings, never in VIGIL_DB_URL. */
  static final List<String> SECRET_URL_PARAMETERS = List.of("password", "sslpassword");

  /** The relay's own settings, in README order. */
  private static final ConfigDef RELAY_SETTINGS =
      ConfigDef.of(
          DB_URL.check(
              RelayConfig::carriesNoSecret,
              "must not carry password or sslpassword parameters (the engine's configuration"
                  + " and its offset store would hold them): give them in VIGIL_DB_PASSWORD and"
                  + " VIGIL_DB_SSLPASSWORD, or their _FILE forms"),
          DB_USER.doc("Database user with the REPLICATION attribute, owner of the outbox table."),
          DB_PASSWORD,
          DB_SSLPASSWORD,
          KAFKA_BOOTSTRAP_SERVERS,
          TOPIC,
          TOPIC_PARTITIONS,
          TOPIC_REPLICATION_FACTOR,
          SLOT,
          SLOT_FAILOVER,
          PUBLICATION,
          SNAPSHOT_MODE,
          HEARTBEAT_INTERVAL,
          POLL_INTERVAL,
          PRODUCER_LINGER,
          OFFSET_FLUSH_INTERVAL,
          DELIVERY,
          OFFSETS_TOPIC,
          TRANSACTION_TIMEOUT,
          DEBEZIUM_HEADERS,
          STANDBY_POLL_INTERVAL,
          LEASE,
          MAX_RETRY_BACKOFF,
          LAG_SAMPLE_INTERVAL,
          HTTP_PORT.withDefault("8082").doc("Port of /health and /metrics; 0 picks a free port."),
          INSTANCE_ID);

  /** Every setting of the relay, in README order: its own, then the Kafka security settings. */
  public static final ConfigDef DEFINITION = RELAY_SETTINGS.with(KafkaSettings::addTo);

  private final KafkaClientProperties kafkaClient;

  /**
   * Reads and validates every setting, once.
   *
   * @throws dev.vigil.kit.ConfigException listing every missing or invalid key
   */
  public RelayConfig(Settings settings) {
    super(DEFINITION, settings);
    kafkaClient = KafkaClientProperties.of(this);
  }

  /**
   * Security and pass-through properties for every Kafka client of the relay (producer, admin).
   * Debezium itself runs no Kafka client here: offsets are stored in PostgreSQL.
   */
  public KafkaClientProperties kafkaClient() {
    return kafkaClient;
  }

  /**
   * What every JDBC connection of the relay is opened with besides {@link #dbUrl()}: user, password
   * and, when set, the client key's password ({@code sslpassword}). The URL's TLS parameters
   * (sslmode, sslrootcert, sslcert, sslkey: file paths, no secrets) stay in the URL.
   */
  public Properties connectionProperties() {
    Properties properties = new Properties();
    properties.setProperty("user", dbUser());
    properties.setProperty("password", dbPassword());
    if (!keyPassword().isEmpty()) {
      properties.setProperty("sslpassword", keyPassword());
    }
    return properties;
  }

  /** The client key's password ({@code VIGIL_DB_SSLPASSWORD}), empty when there is none. */
  public String keyPassword() {
    String value = get(DB_SSLPASSWORD);
    return value == null ? "" : value;
  }

  private static boolean carriesNoSecret(String jdbcUrl) {
    return PostgresTls.queryParameters(jdbcUrl).keySet().stream()
        .noneMatch(SECRET_URL_PARAMETERS::contains);
  }

  /** Whether batches are Kafka transactions ({@code VIGIL_RELAY_DELIVERY=exactly-once}). */
  public boolean exactlyOnce() {
    return EXACTLY_ONCE.equals(get(DELIVERY));
  }
}
