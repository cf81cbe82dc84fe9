package dev.vigil.relay.ops;

import dev.vigil.kit.PeriodicTask;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures how much WAL the replication slot holds back, {@code pg_current_wal_lsn() -
 * confirmed_flush_lsn} in bytes, at a fixed interval, on its own connection (reopened after a
 * failure). Runs on standbys too: the lag of a slot nobody streams is what an operator must see.
 * While this instance streams it also notes the slot's walsender, so a replication connection
 * Debezium replaced by itself shows in the metrics.
 */
public final class SlotLagMonitor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SlotLagMonitor.class);

  private static final String LAG =
      """
      select (pg_current_wal_lsn() - confirmed_flush_lsn)::bigint, coalesce(active_pid, 0)
      from pg_replication_slots where slot_name = ?
      """;

  private final String url;
  private final Properties credentials;
  private final String slot;
  private final RelayMetrics metrics;
  private final BooleanSupplier streaming;
  private PeriodicTask scheduler;
  private Connection connection;

  /**
   * @param streaming whether this instance streams right now (its walsender is the slot's)
   */
  public SlotLagMonitor(
      String url,
      Properties credentials,
      String slot,
      RelayMetrics metrics,
      BooleanSupplier streaming) {
    this.url = url;
    this.credentials = credentials;
    this.slot = slot;
    this.metrics = metrics;
    this.streaming = streaming;
  }

  public void start(Duration interval) {
    scheduler = PeriodicTask.start("relay-slot-lag", Duration.ZERO, interval, this::sample);
  }

  /** Measures once; -1 when the slot does not exist or the database cannot be reached. */
  public long sample() {
    long lag = -1;
    try {
      if (connection == null || connection.isClosed()) {
        connection = DriverManager.getConnection(url, credentials);
      }
      try (PreparedStatement statement = connection.prepareStatement(LAG)) {
        statement.setString(1, slot);
        try (ResultSet rs = statement.executeQuery()) {
          if (rs.next()) {
            if (rs.getObject(1) != null) {
              lag = rs.getLong(1);
            }
            if (streaming.getAsBoolean()) {
              metrics.walsenderSeen(rs.getLong(2));
            }
          }
        }
      }
    } catch (SQLException e) {
      LOG.debug("slot lag sample failed slot={} error={}", slot, e.getMessage());
      closeConnection();
    }
    metrics.slotLag(lag);
    return lag;
  }

  @Override
  public void close() {
    if (scheduler != null) {
      scheduler.close();
    }
    closeConnection();
  }

  private void closeConnection() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        LOG.debug("closing slot lag connection failed error={}", e.toString());
      }
      connection = null;
    }
  }
}
