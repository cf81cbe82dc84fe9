package dev.vigil.relay.standby;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which relay instance streams: a session-level PostgreSQL advisory lock, keyed by the slot
 * name, held on a dedicated connection for as long as the instance streams.
 *
 * <p>Guarantees: at most one session holds the lock; it is released when the holder unlocks, closes
 * the connection, or dies (PostgreSQL ends the session when the connection breaks, so a {@code kill
 * -9}ed relay frees it as soon as the server notices the closed socket). The replication slot is a
 * second fence: PostgreSQL lets only one walsender use a slot at a time. A holder that loses its
 * connection must stop streaming; {@link #isHeld()} tells it.
 */
public final class LeaderLock implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderLock.class);

  private static final String TRY_LOCK =
      """
      select pg_try_advisory_lock(hashtext('vigil.relay'), hashtext(?))
      """;
  private static final String UNLOCK =
      """
      select pg_advisory_unlock(hashtext('vigil.relay'), hashtext(?))
      """;

  private final String url;
  private final String user;
  private final String password;
  private final String slot;
  private Connection connection;
  private boolean held;

  public LeaderLock(String url, String user, String password, String slot) {
    this.url = url;
    this.user = user;
    this.password = password;
    this.slot = slot;
  }

  /**
   * Tries once to take the lock.
   *
   * @return true if this instance now holds it
   * @throws SQLException if the database cannot be reached
   */
  public synchronized boolean tryAcquire() throws SQLException {
    if (held && isHeld()) {
      return true;
    }
    if (connection == null || connection.isClosed()) {
      Properties props = new Properties();
      props.setProperty("user", user);
      props.setProperty("password", password);
      props.setProperty("tcpKeepAlive", "true");
      // The server must notice a vanished holder (power loss, partition: no FIN/RST) within
      // seconds, not after
      // the OS default of two hours, or the standby could never take the lock over.
      props.setProperty(
          "options",
          "-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3");
      props.setProperty("ApplicationName", "vigil-relay-lock");
      connection = DriverManager.getConnection(url, props);
    }
    try (PreparedStatement statement = connection.prepareStatement(TRY_LOCK)) {
      statement.setString(1, slot);
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        held = rs.getBoolean(1);
      }
    } catch (SQLException e) {
      closeQuietly();
      throw e;
    }
    if (held) {
      LOG.info("lock acquired slot={}", slot);
    }
    return held;
  }

  /** True while the lock is held and its connection is alive. */
  public synchronized boolean isHeld() {
    if (!held || connection == null) {
      return false;
    }
    try {
      return connection.isValid(5);
    } catch (SQLException e) {
      return false;
    }
  }

  /** Releases the lock and closes its connection. */
  @Override
  public synchronized void close() {
    if (connection == null) {
      return;
    }
    if (held) {
      try (PreparedStatement statement = connection.prepareStatement(UNLOCK)) {
        statement.setString(1, slot);
        statement.execute();
        LOG.info("lock released slot={}", slot);
      } catch (SQLException e) {
        LOG.warn("lock release failed, closing its session instead slot={}", slot, e);
      }
    }
    closeQuietly();
  }

  private void closeQuietly() {
    held = false;
    try {
      connection.close();
    } catch (SQLException e) {
      LOG.debug("closing lock connection failed error={}", e.toString());
    }
    connection = null;
  }
}
