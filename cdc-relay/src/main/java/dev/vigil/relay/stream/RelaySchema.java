package dev.vigil.relay.stream;

import static dev.vigil.relay.config.RelayConfig.OFFSETS_TOPIC;
import static dev.vigil.relay.config.RelayConfig.PUBLICATION;
import static dev.vigil.relay.config.RelayConfig.SLOT;

import dev.vigil.contract.OutboxContract;
import dev.vigil.relay.config.RelayConfig;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prepares the database before the active relay streams: applies the relay's migrations ({@code
 * classpath:db/relay}, history table {@code flyway_relay_history}), makes the publication cover
 * exactly the outbox and heartbeat tables for inserts only, and refuses to go on when stored
 * offsets exist but the replication slot does not.
 *
 * <p>Why refuse: a missing slot with stored offsets means the slot was dropped or the database was
 * restored. Debezium would silently create a new slot at the current WAL position, and every outbox
 * row committed in between would never reach Kafka. With exactly-once delivery it also refuses a
 * position committed in Kafka that the server's history does not hold ({@link
 * StoredPositionCheck}).
 */
public final class RelaySchema {
  /** The heartbeat table created by the relay's migration. */
  public static final String HEARTBEAT_TABLE = "public.relay_heartbeat";

  private static final Logger LOG = LoggerFactory.getLogger(RelaySchema.class);

  private static final String OFFSETS_EXIST =
      """
      select exists (select 1 from relay_offsets where slot_name = ?)
      """;
  private static final String SLOT_EXISTS =
      """
      select exists (select 1 from pg_replication_slots where slot_name = ?)
      """;
  private static final String SLOT_POSITION =
      """
      select confirmed_flush_lsn::text from pg_replication_slots where slot_name = ?
      """;
  private static final String PUBLICATION_EXISTS =
      """
      select exists (select 1 from pg_publication where pubname = ?)
      """;

  /** Debezium's source partition of the PostgreSQL connector: the topic prefix. */
  private static final Map<String, String> PARTITION =
      Map.of("server", EngineProperties.TOPIC_PREFIX);

  private final RelayConfig config;

  public RelaySchema(RelayConfig config) {
    this.config = config;
  }

  /**
   * Migrates, checks the slot against the stored offsets, and creates or corrects the publication.
   *
   * @throws SlotMissingException if offsets are stored but the slot is gone
   * @throws OffsetsAheadException if the position committed in Kafka is not in the server's history
   * @throws SQLException if the database cannot be reached or the outbox table does not exist yet
   */
  public void prepare() throws SQLException {
    migrate();
    try (Connection connection =
        DriverManager.getConnection(config.dbUrl(), config.connectionProperties())) {
      checkSlot(connection);
      new SlotFailover(config).ensure(connection);
      ensurePublication(connection);
    }
  }

  /**
   * Applies the relay's migrations (also those the lock's lease needs, so this runs before the
   * first try for the lock). Flyway serialises concurrent relays with its own lock.
   */
  public void migrate() {
    Map<String, String> tls = new HashMap<>();
    Properties connection = config.connectionProperties();
    for (String name : connection.stringPropertyNames()) {
      if (!name.equals("user") && !name.equals("password")) {
        tls.put(name, connection.getProperty(name));
      }
    }
    Flyway.configure()
        .dataSource(config.dbUrl(), config.dbUser(), config.dbPassword())
        .jdbcProperties(tls)
        .locations("classpath:db/relay")
        .table("flyway_relay_history")
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load()
        .migrate();
  }

  private void checkSlot(Connection connection) throws SQLException {
    String slotName = config.get(SLOT);
    boolean inTable = exists(connection, OFFSETS_EXIST, slotName);
    boolean slot = exists(connection, SLOT_EXISTS, slotName);
    if (inTable && !slot) {
      throw new SlotMissingException(slotName);
    }
    boolean stored = inTable;
    if (config.exactlyOnce()) {
      OffsetRecords records =
          new OffsetRecords(config.get(OFFSETS_TOPIC), EngineProperties.engineName(config));
      Map<ByteBuffer, ByteBuffer> topic = readOffsetsTopic();
      stored = hasOffsets(topic, records);
      if (stored && !slot) {
        throw SlotMissingException.offsetsInKafka(slotName, config.get(OFFSETS_TOPIC));
      }
      if (stored) {
        checkStoredPosition(connection, records, topic);
      }
    }
    LOG.info(
        "slot check slot={} slotExists={} offsetsStored={} offsetsIn={}",
        slotName,
        slot,
        stored,
        config.exactlyOnce() ? "kafka:" + config.get(OFFSETS_TOPIC) : "relay_offsets");
  }

  /**
   * Refuses to start when the position committed in Kafka is not in the server's history (see
   * {@link StoredPositionCheck}).
   */
  private void checkStoredPosition(
      Connection connection, OffsetRecords records, Map<ByteBuffer, ByteBuffer> topic)
      throws SQLException {
    ByteBuffer offset = topic.get(ByteBuffer.wrap(records.key(PARTITION)));
    OptionalLong storedLsn = records.readLsn(offset);
    if (storedLsn.isEmpty()) {
      LOG.warn(
          "stored position not checked: no LSN in the stored offsets slot={}", config.get(SLOT));
      return;
    }
    Optional<StoredPositionCheck.Origin> origin =
        records.readOrigin(topic.get(ByteBuffer.wrap(records.originKey(PARTITION))));
    ServerIdentity server = ServerIdentity.read(config);
    Optional<String> problem =
        StoredPositionCheck.problem(
            storedLsn.getAsLong(),
            origin,
            server,
            ancestor -> server.switchpoint(config, ancestor));
    String slotPosition = slotPosition(connection);
    if (problem.isPresent()) {
      throw new OffsetsAheadException(
          config.get(SLOT), config.get(OFFSETS_TOPIC), problem.get(), slotPosition);
    }
    LOG.info(
        "stored position checked slot={} stored={} slotConfirmed={} serverWal={} systemId={}"
            + " timeline={} storedOrigin={}",
        config.get(SLOT),
        ServerIdentity.lsn(storedLsn.getAsLong()),
        slotPosition,
        ServerIdentity.lsn(server.walPosition()),
        server.systemId(),
        server.timeline(),
        origin.map(o -> o.systemId() + "/" + o.timeline()).orElse("unknown (stored before 28)"));
  }

  private String slotPosition(Connection connection) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(SLOT_POSITION)) {
      statement.setString(1, config.get(SLOT));
      try (ResultSet rs = statement.executeQuery()) {
        return rs.next() && rs.getString(1) != null ? rs.getString(1) : "none";
      }
    }
  }

  /** Whether the offsets topic holds a committed offset of this slot's engine. */
  private static boolean hasOffsets(Map<ByteBuffer, ByteBuffer> topic, OffsetRecords records) {
    byte[] prefix = records.keyPrefix();
    ByteBuffer wanted = ByteBuffer.wrap(prefix);
    return topic.keySet().stream()
        .anyMatch(
            key ->
                key.remaining() >= prefix.length
                    && key.duplicate().limit(key.position() + prefix.length).equals(wanted));
  }

  /** Every committed key of the offsets topic and its latest value. */
  private Map<ByteBuffer, ByteBuffer> readOffsetsTopic() {
    try (OffsetsTopicReader reader =
        new OffsetsTopicReader(
            OutboxStream.offsetsConsumerProperties(config), config.get(OFFSETS_TOPIC))) {
      return new HashMap<>(reader.catchUp());
    }
  }

  private void ensurePublication(Connection connection) throws SQLException {
    String tables = OutboxContract.QUALIFIED_TABLE + ", " + HEARTBEAT_TABLE;
    String name = config.get(PUBLICATION); // validated identifier: safe to inline
    try (Statement statement = connection.createStatement()) {
      if (exists(connection, PUBLICATION_EXISTS, name)) {
        statement.execute("alter publication " + name + " set table " + tables);
        statement.execute("alter publication " + name + " set (publish = 'insert')");
        LOG.info("publication checked publication={} tables={}", name, tables);
      } else {
        statement.execute(
            "create publication " + name + " for table " + tables + " with (publish = 'insert')");
        LOG.info("publication created publication={} tables={}", name, tables);
      }
    }
  }

  private static boolean exists(Connection connection, String sql, String value)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, value);
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }
}
