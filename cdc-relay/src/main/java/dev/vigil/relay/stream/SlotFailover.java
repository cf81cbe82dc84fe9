package dev.vigil.relay.stream;

import static dev.vigil.relay.config.RelayConfig.SLOT;
import static dev.vigil.relay.config.RelayConfig.SLOT_FAILOVER;

import dev.vigil.relay.config.RelayConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, before the engine starts, whether the relay's slot is a failover slot, and says so in
 * one log line.
 *
 * <p>A logical slot lives on the primary only; after a failover the promoted standby has no slot,
 * and the relay refuses to start ({@link SlotMissingException}). A failover slot (PostgreSQL 17+)
 * is synchronised to physical standbys that run with {@code sync_replication_slots=on}, so it is
 * there after a promotion. Debezium creates a missing slot as a failover slot ({@code
 * slot.failover}, see {@link EngineProperties}); an existing plain slot (created by an older relay
 * or with the setting off) is turned into one here with {@code ALTER_REPLICATION_SLOT}, which keeps
 * its position. Older servers and standbys get a plain slot: nothing changes for them.
 */
final class SlotFailover {
  /** First PostgreSQL version ({@code server_version_num}) with failover slots. */
  static final int FIRST_VERSION = 170000;

  private static final Logger LOG = LoggerFactory.getLogger(SlotFailover.class);

  private static final String SERVER =
      """
      select current_setting('server_version_num')::int, pg_is_in_recovery()
      """;
  private static final String SLOT_STATE =
      """
      select failover, current_setting('synchronized_standby_slots')
      from pg_replication_slots where slot_name = ?
      """;
  private static final String STANDBY_SLOTS =
      """
      select current_setting('synchronized_standby_slots')
      """;

  /** What the relay found and did; {@code failover} is what the slot is (or will be) now. */
  enum Outcome {
    DISABLED(false),
    UNSUPPORTED_VERSION(false),
    UNSUPPORTED_STANDBY(false),
    WILL_CREATE(true),
    ALREADY(true),
    ENABLED(true),
    ENABLE_FAILED(false);

    final boolean failover;

    Outcome(boolean failover) {
      this.failover = failover;
    }
  }

  private final RelayConfig config;

  SlotFailover(RelayConfig config) {
    this.config = config;
  }

  /**
   * Reports (and where needed enables) the slot's failover flag. Never stops the relay: a slot that
   * cannot be made a failover slot still streams, with a warning.
   */
  Outcome ensure(Connection connection) throws SQLException {
    String slot = config.get(SLOT);
    int version;
    boolean standby;
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(SERVER)) {
      rs.next();
      version = rs.getInt(1);
      standby = rs.getBoolean(2);
    }
    if (!config.get(SLOT_FAILOVER)) {
      return report(Outcome.DISABLED, slot, version, "", SLOT_FAILOVER.key() + "=false");
    }
    if (version < FIRST_VERSION) {
      return report(
          Outcome.UNSUPPORTED_VERSION,
          slot,
          version,
          "",
          "PostgreSQL before 17 has no failover slots; a failover loses the slot");
    }
    if (standby) {
      return report(
          Outcome.UNSUPPORTED_STANDBY, slot, version, "", "connected to a standby, not a primary");
    }
    Boolean failover = null;
    String standbySlots;
    try (PreparedStatement statement = connection.prepareStatement(SLOT_STATE)) {
      statement.setString(1, slot);
      try (ResultSet rs = statement.executeQuery()) {
        if (rs.next()) {
          failover = rs.getBoolean(1);
          standbySlots = rs.getString(2);
        } else {
          standbySlots = standbySlots(connection);
        }
      }
    }
    if (failover == null) {
      return report(Outcome.WILL_CREATE, slot, version, standbySlots, "created by Debezium");
    }
    if (failover) {
      return report(Outcome.ALREADY, slot, version, standbySlots, "existing failover slot");
    }
    try {
      alter(slot);
      return report(Outcome.ENABLED, slot, version, standbySlots, "existing plain slot altered");
    } catch (SQLException e) {
      // Streaming matters more than surviving a failover; the next start tries again.
      return report(
          Outcome.ENABLE_FAILED, slot, version, standbySlots, "alter failed: " + e.getMessage());
    }
  }

  private static String standbySlots(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(STANDBY_SLOTS)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** {@code ALTER_REPLICATION_SLOT} is a replication command: it needs a replication connection. */
  private void alter(String slot) throws SQLException {
    Properties properties = config.connectionProperties();
    properties.setProperty("replication", "database");
    properties.setProperty("preferQueryMode", "simple");
    properties.setProperty("assumeMinServerVersion", "17");
    try (Connection replication = DriverManager.getConnection(config.dbUrl(), properties);
        Statement statement = replication.createStatement()) {
      // The slot name is a validated identifier (RelayConfig.SLOT): safe to inline.
      statement.execute("ALTER_REPLICATION_SLOT " + slot + " ( FAILOVER true )");
    }
  }

  /**
   * Whether exactly-once delivery runs on a failover slot that may get ahead of the standbys: with
   * {@code synchronized_standby_slots} empty the relay can commit to Kafka changes that a promoted
   * standby never received, and the offsets in Kafka are then ahead of the new primary (the relay
   * refuses to start there, {@link StoredPositionCheck}, and the gap needs an operator).
   */
  static boolean unprotectedFailover(Outcome outcome, boolean exactlyOnce, String standbySlots) {
    return outcome.failover && exactlyOnce && (standbySlots == null || standbySlots.isBlank());
  }

  private Outcome report(
      Outcome outcome, String slot, int version, String standbySlots, String reason) {
    if (unprotectedFailover(outcome, config.exactlyOnce(), standbySlots)) {
      LOG.warn(
          "exactly-once on a failover slot without synchronized_standby_slots slot={}: the relay"
              + " may commit to Kafka changes a promoted standby never received, and would then"
              + " refuse to start there; set synchronized_standby_slots on the primary to the"
              + " physical slots of the standbys that may be promoted",
          slot);
    }
    if (outcome == Outcome.ENABLE_FAILED) {
      LOG.warn(
          "slot failover=false outcome={} slot={} serverVersion={} reason=\"{}\"",
          outcome,
          slot,
          version,
          reason);
    } else {
      LOG.info(
          "slot failover={} outcome={} slot={} serverVersion={} synchronizedStandbySlots=\"{}\""
              + " reason=\"{}\"",
          outcome.failover,
          outcome,
          slot,
          version,
          standbySlots,
          reason);
    }
    return outcome;
  }
}
