package dev.vigil.relay.standby;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
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
 *
 * <p>A frozen holder (SIGSTOP, a long GC pause, a stuck VM) keeps its session, and so the lock,
 * alive: the kernel still answers keepalives. So the holder also keeps a lease row ({@code
 * relay_lease}) that it renews every third of {@code VIGIL_RELAY_LEASE} on its lock connection, on
 * the database's clock; a frozen process cannot. A standby that finds the lease expired while the
 * session named in it still holds the lock ends that session and the walsender on the slot ({@code
 * pg_terminate_backend}; the relays share one database user, which may do so), and takes the lock
 * at its next try. The old relay, when it wakes, finds its connection gone and stops streaming;
 * with exactly-once delivery the new relay's transactional id has fenced its producer already, so
 * it writes nothing to Kafka either.
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
  private final Properties credentials;
  private static final String WRITE_LEASE =
      """
      insert into relay_lease (slot_name, holder, lock_pid, renewed_at, expires_at)
      values (?, ?, pg_backend_pid(), clock_timestamp(), clock_timestamp() + ? * interval '1 ms')
      on conflict (slot_name) do update
        set holder = excluded.holder, lock_pid = excluded.lock_pid,
            renewed_at = excluded.renewed_at, expires_at = excluded.expires_at
      """;
  private static final String RENEW_LEASE =
      """
      update relay_lease
         set renewed_at = clock_timestamp(), expires_at = clock_timestamp() + ? * interval '1 ms'
       where slot_name = ? and holder = ? and lock_pid = pg_backend_pid()
      """;
  private static final String DROP_LEASE =
      """
      delete from relay_lease where slot_name = ? and lock_pid = pg_backend_pid()
      """;

  /**
   * Ends the sessions of a holder whose lease expired: its lock session, only while that session
   * still holds the lock (a pid from a stale row may belong to anyone by now), and the walsender on
   * the slot. One row per session ended.
   */
  private static final String TAKE_OVER =
      """
      with expired as (
        select holder, lock_pid, expires_at from relay_lease
         where slot_name = ? and expires_at < clock_timestamp()
           and lock_pid in (
             select pid from pg_locks
              where locktype = 'advisory' and granted and objsubid = 2
                and classid = hashtext('vigil.relay')::oid and objid = hashtext(?)::oid
                and database = (select oid from pg_database where datname = current_database()))
      )
      select e.holder, e.expires_at::text, p.pid, pg_terminate_backend(p.pid)
        from expired e,
             lateral (select e.lock_pid as pid
                      union
                      select active_pid from pg_replication_slots
                       where slot_name = ? and active_pid is not null) p
      """;

  private final String slot;
  private final String instanceId;
  private final Duration lease;
  private final ScheduledExecutorService renewer =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().name("relay-lease").daemon().unstarted(r));
  private Connection connection;
  private boolean held;
  private ScheduledFuture<?> renewal;

  /**
   * @param credentials user, password and TLS key password of the connection (never a URL
   *     parameter)
   * @param instanceId this relay's {@code VIGIL_INSTANCE_ID}, written into the lease
   * @param lease how long a holder that stopped renewing keeps the lease
   */
  public LeaderLock(
      String url, Properties credentials, String slot, String instanceId, Duration lease) {
    this.url = url;
    this.credentials = credentials;
    this.slot = slot;
    this.instanceId = instanceId;
    this.lease = lease;
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
      props.putAll(credentials);
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
      try (PreparedStatement statement = connection.prepareStatement(WRITE_LEASE)) {
        statement.setString(1, slot);
        statement.setString(2, instanceId);
        statement.setLong(3, lease.toMillis());
        statement.executeUpdate();
      } catch (SQLException e) {
        closeQuietly();
        throw e;
      }
      long every = Math.max(1, lease.toMillis() / 3);
      renewal = renewer.scheduleWithFixedDelay(this::renew, every, every, TimeUnit.MILLISECONDS);
      LOG.info("lock acquired slot={} lease={}", slot, lease);
    }
    return held;
  }

  /** Renews the lease; a lease that cannot be renewed is lost, and with it the lock. */
  private synchronized void renew() {
    if (!held || connection == null) {
      return;
    }
    try (PreparedStatement statement = connection.prepareStatement(RENEW_LEASE)) {
      statement.setLong(1, lease.toMillis());
      statement.setString(2, slot);
      statement.setString(3, instanceId);
      if (statement.executeUpdate() == 1) {
        return;
      }
      LOG.warn("lease taken over by another relay, giving up the lock slot={}", slot);
    } catch (SQLException e) {
      LOG.warn("lease not renewed, giving up the lock slot={} error={}", slot, e.toString());
    }
    closeQuietly();
  }

  /**
   * For a standby that did not get the lock: when the holder's lease expired (it stopped renewing:
   * frozen, or cut off from the database) while its session still holds the lock, ends that session
   * and the walsender on the slot, so that the next {@link #tryAcquire()} can succeed.
   *
   * @return true if sessions were ended
   * @throws SQLException if the database cannot be reached
   */
  public synchronized boolean takeOverExpired() throws SQLException {
    if (held || connection == null) {
      return false;
    }
    List<String> ended = new ArrayList<>();
    String holder = null;
    String expiredAt = null;
    try (PreparedStatement statement = connection.prepareStatement(TAKE_OVER)) {
      statement.setString(1, slot);
      statement.setString(2, slot);
      statement.setString(3, slot);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          holder = rs.getString(1);
          expiredAt = rs.getString(2);
          ended.add(rs.getInt(3) + (rs.getBoolean(4) ? "" : "(not ended)"));
        }
      }
    } catch (SQLException e) {
      closeQuietly();
      throw e;
    }
    if (ended.isEmpty()) {
      return false;
    }
    LOG.warn(
        "lease of the active relay expired, ending its sessions slot={} holder={} expired_at={}"
            + " pids={}",
        slot,
        holder,
        expiredAt,
        ended);
    return true;
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
      try (PreparedStatement statement = connection.prepareStatement(DROP_LEASE)) {
        statement.setString(1, slot);
        statement.execute();
      } catch (SQLException e) {
        LOG.debug("lease not dropped slot={} error={}", slot, e.toString());
      }
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
    if (renewal != null) {
      renewal.cancel(false);
      renewal = null;
    }
    try {
      connection.close();
    } catch (SQLException e) {
      LOG.debug("closing lock connection failed error={}", e.toString());
    }
    connection = null;
  }
}
