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
 * row committed in between would never reach Kafka.
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
  private static final String PUBLICATION_EXISTS =
      """
      select exists (select 1 from pg_publication where pubname = ?)
      """;

  private final RelayConfig config;

  public RelaySchema(RelayConfig config) {
    this.config = config;
  }

  /**
   * Migrates, checks the slot against the stored offsets, and creates or corrects the publication.
   *
   * @throws SlotMissingException if offsets are stored but the slot is gone
   * @throws SQLException if the database cannot be reached or the outbox table does not exist yet
   */
  public void prepare() throws SQLException {
    Flyway.configure()
        .dataSource(config.dbUrl(), config.dbUser(), config.dbPassword())
        .locations("classpath:db/relay")
        .table("flyway_relay_history")
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load()
        .migrate();
    try (Connection connection =
        DriverManager.getConnection(config.dbUrl(), config.dbUser(), config.dbPassword())) {
      checkSlot(connection);
      new SlotFailover(config).ensure(connection);
      ensurePublication(connection);
    }
  }

  private void checkSlot(Connection connection) throws SQLException {
    boolean offsets = exists(connection, OFFSETS_EXIST, config.get(SLOT));
    boolean slot = exists(connection, SLOT_EXISTS, config.get(SLOT));
    if (offsets && !slot) {
      throw new SlotMissingException(config.get(SLOT));
    }
    if (!slot && config.exactlyOnce() && offsetsInKafka()) {
      throw SlotMissingException.offsetsInKafka(config.get(SLOT), config.get(OFFSETS_TOPIC));
    }
    LOG.info("slot check slot={} slotExists={} offsetsStored={}", config.get(SLOT), slot, offsets);
  }

  /** Whether the offsets topic holds a committed offset of this slot's engine. */
  private boolean offsetsInKafka() {
    byte[] prefix =
        new OffsetRecords(config.get(OFFSETS_TOPIC), EngineProperties.engineName(config))
            .keyPrefix();
    ByteBuffer wanted = ByteBuffer.wrap(prefix);
    try (OffsetsTopicReader reader =
        new OffsetsTopicReader(
            OutboxStream.offsetsConsumerProperties(config), config.get(OFFSETS_TOPIC))) {
      return reader.catchUp().keySet().stream()
          .anyMatch(
              key ->
                  key.remaining() >= prefix.length
                      && key.duplicate().limit(key.position() + prefix.length).equals(wanted));
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
