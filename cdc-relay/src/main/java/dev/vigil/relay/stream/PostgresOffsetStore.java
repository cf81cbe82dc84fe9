package dev.vigil.relay.stream;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.storage.OffsetBackingStore;
import org.apache.kafka.connect.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Debezium's offset store in a PostgreSQL table ({@code relay_offsets}) of the outbox database.
 *
 * <p>Why a database table rather than a compacted Kafka topic: the offsets describe positions in
 * this database's WAL, so they live and are backed up with it; the slot-safety check ("offsets
 * exist but the slot is gone") is one query in the same place as the slot; and a standby that can
 * reach the database (which it must, to stream) can always read them, even while Kafka is down.
 * Neither choice can make offsets run ahead of Kafka: Debezium only asks for a store after the
 * relay marked the batch processed, which it does only once Kafka acknowledged every record.
 *
 * <p>A write is one upsert transaction, so a store is all-or-nothing; a failed write is reported to
 * Debezium, which keeps the offsets and retries them with the next flush, and the replication slot
 * is not advanced until a store succeeds. Instantiated by Debezium through its no-argument
 * constructor; configured with the {@code vigil.offsets.*} engine properties.
 */
public final class PostgresOffsetStore implements OffsetBackingStore {
  static final String URL = "vigil.offsets.jdbc.url";
  static final String USER = "vigil.offsets.jdbc.user";
  static final String PASSWORD = "vigil.offsets.jdbc.password";
  static final String SSL_PASSWORD = "vigil.offsets.jdbc.sslpassword";
  static final String SLOT = "vigil.offsets.slot";

  private static final Logger LOG = LoggerFactory.getLogger(PostgresOffsetStore.class);

  private static final String SELECT =
      """
      select offset_value from relay_offsets where slot_name = ? and offset_key = ?
      """;
  private static final String UPSERT =
      """
      insert into relay_offsets (slot_name, offset_key, offset_value) values (?, ?, ?)
      on conflict (slot_name, offset_key)
      do update set offset_value = excluded.offset_value, updated_at = now()
      """;
  private static final String DELETE =
      """
      delete from relay_offsets where slot_name = ? and offset_key = ?
      """;

  private String url;
  private String user;
  private String password;
  private String sslPassword;
  private String slot;
  private Connection connection;

  /** Used by Debezium. */
  public PostgresOffsetStore() {}

  @Override
  public void configure(WorkerConfig config) {
    Map<String, String> props = config.originalsStrings();
    url = require(props, URL);
    user = require(props, USER);
    password = props.getOrDefault(PASSWORD, "");
    sslPassword = props.get(SSL_PASSWORD);
    slot = require(props, SLOT);
  }

  @Override
  public synchronized void start() {
    LOG.info("offset store started table=relay_offsets slot={}", slot);
  }

  @Override
  public synchronized void stop() {
    closeConnection();
  }

  @Override
  public synchronized Future<Map<ByteBuffer, ByteBuffer>> get(Collection<ByteBuffer> keys) {
    Map<ByteBuffer, ByteBuffer> result = new HashMap<>();
    try (PreparedStatement select = connection().prepareStatement(SELECT)) {
      for (ByteBuffer key : keys) {
        select.setString(1, slot);
        select.setString(2, text(key));
        try (ResultSet rs = select.executeQuery()) {
          // A commit comes back without lsn_proc: see TransactionBoundary.forRestart.
          result.put(
              key, rs.next() ? TransactionBoundary.forRestart(bytes(rs.getString(1))) : null);
        }
      }
      return CompletableFuture.completedFuture(result);
    } catch (SQLException e) {
      closeConnection();
      return CompletableFuture.failedFuture(
          new IllegalStateException("cannot read offsets of slot " + slot, e));
    }
  }

  @Override
  public synchronized Future<Void> set(
      Map<ByteBuffer, ByteBuffer> values, Callback<Void> callback) {
    try {
      Connection c = connection();
      c.setAutoCommit(false);
      try (PreparedStatement upsert = c.prepareStatement(UPSERT);
          PreparedStatement delete = c.prepareStatement(DELETE)) {
        for (Map.Entry<ByteBuffer, ByteBuffer> entry : values.entrySet()) {
          if (entry.getValue() == null) {
            delete.setString(1, slot);
            delete.setString(2, text(entry.getKey()));
            delete.addBatch();
          } else {
            upsert.setString(1, slot);
            upsert.setString(2, text(entry.getKey()));
            upsert.setString(3, text(entry.getValue()));
            upsert.addBatch();
          }
        }
        upsert.executeBatch();
        delete.executeBatch();
        c.commit();
      } catch (SQLException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true); // never leave the session idle in a transaction
      }
      if (callback != null) {
        callback.onCompletion(null, null);
      }
      return CompletableFuture.completedFuture(null);
    } catch (SQLException e) {
      closeConnection();
      LOG.warn("offset store failed slot={} error={}", slot, e.getMessage());
      IllegalStateException failure =
          new IllegalStateException("cannot store offsets of slot " + slot, e);
      if (callback != null) {
        callback.onCompletion(failure, null);
      }
      return CompletableFuture.failedFuture(failure);
    }
  }

  @Override
  public Set<Map<String, Object>> connectorPartitions(String connectorName) {
    // Only used by Kafka Connect's REST API for listing offsets; the embedded engine never asks.
    return Set.of();
  }

  private Connection connection() throws SQLException {
    if (connection == null || connection.isClosed()) {
      Properties properties = new Properties();
      properties.setProperty("user", user);
      properties.setProperty("password", password);
      if (sslPassword != null) {
        properties.setProperty("sslpassword", sslPassword);
      }
      connection = DriverManager.getConnection(url, properties);
    }
    return connection;
  }

  private void closeConnection() {
    if (connection == null) {
      return;
    }
    try {
      connection.close();
    } catch (SQLException e) {
      LOG.debug("closing offset store connection failed", e);
    } finally {
      connection = null;
    }
  }

  private static String require(Map<String, String> props, String key) {
    String value = props.get(key);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException("engine property " + key + " is missing");
    }
    return value;
  }

  private static String text(ByteBuffer buffer) {
    ByteBuffer copy = buffer.duplicate();
    byte[] bytes = new byte[copy.remaining()];
    copy.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static ByteBuffer bytes(String text) {
    return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
  }
}
