package dev.vigil.harness.failover;

import dev.vigil.harness.Postmasters;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL 17 primary and a streaming physical standby from the embedded binaries, set up the
 * way failover slots need them:
 *
 * <ul>
 *   <li>primary: {@code wal_level=logical}, a physical slot {@value #STANDBY_SLOT} for the standby,
 *       {@code synchronized_standby_slots} naming it (a logical walsender of a failover slot never
 *       sends a change the standby has not confirmed), {@code synchronous_standby_names='*'} (a
 *       commit returns only once the standby has flushed it, so a failover loses no acknowledged
 *       transaction and a test can count on every committed row);
 *   <li>standby: {@code primary_conninfo} with a {@code dbname} (slot synchronisation needs one),
 *       {@code primary_slot_name}, {@code hot_standby_feedback=on} and {@code
 *       sync_replication_slots=on}.
 * </ul>
 *
 * <p>The embedded binaries have no {@code pg_basebackup}, so the standby is a cold copy of the
 * primary's data directory taken after a clean shutdown (a consistent base backup), without {@code
 * pg_replslot} and the lock files, exactly what {@code pg_basebackup} leaves out. {@link
 * #killPrimary()} sends SIGKILL to the primary's postmaster and all its processes; {@link
 * #promoteStandby()} runs {@code pg_promote()}.
 */
public final class PostgresStandbyPair implements AutoCloseable {
  /** The physical slot on the primary that the standby streams from. */
  public static final String STANDBY_SLOT = "vigil_standby";

  /** Superuser; the embedded servers trust local connections. */
  public static final String USER = "postgres";

  private static final Logger LOG = LoggerFactory.getLogger(PostgresStandbyPair.class);
  private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);
  private static final Duration CONDITION_WAIT = Duration.ofSeconds(120);

  private final Path binaries;
  private final Path primaryData;
  private final Path standbyData;
  private EmbeddedPostgres primary;
  private EmbeddedPostgres standby;
  private boolean primaryKilled;
  private boolean promoted;
  private int primaryPort;
  private int standbyPort;

  private final Thread stopOnExit = new Thread(this::close, "postgres-pair-stop-on-exit");

  private PostgresStandbyPair(Path baseDir) {
    this.binaries = baseDir.resolve("binaries");
    this.primaryData = baseDir.resolve("primary");
    this.standbyData = baseDir.resolve("standby");
  }

  /**
   * Starts a new pair under {@code baseDir} (which must not hold one yet) and returns once the
   * standby streams from the primary.
   */
  public static PostgresStandbyPair start(Path baseDir) {
    PostgresStandbyPair pair = new PostgresStandbyPair(baseDir);
    Runtime.getRuntime().addShutdownHook(pair.stopOnExit);
    try {
      pair.startBoth();
      return pair;
    } catch (IOException e) {
      pair.close();
      throw new UncheckedIOException(
          "cannot start a PostgreSQL primary and standby in " + baseDir, e);
    } catch (RuntimeException e) {
      pair.close();
      throw e;
    }
  }

  private void startBoth() throws IOException {
    Files.createDirectories(binaries);
    primary = server(primaryData, 0);
    primaryPort = primary.getPort();
    execute(
        primaryPort, "select pg_create_physical_replication_slot('" + STANDBY_SLOT + "', true)");
    primary.close(); // a clean shutdown: the data directory is now a consistent base backup
    primary = null;
    ColdCopy.copy(primaryData, standbyData);
    ColdCopy.appendSettings(
        primaryData,
        Map.of("synchronized_standby_slots", STANDBY_SLOT, "synchronous_standby_names", "*"));
    Files.createFile(standbyData.resolve("standby.signal"));
    ColdCopy.appendSettings(
        standbyData,
        Map.of(
            "primary_conninfo",
            "host=localhost port="
                + primaryPort
                + " user="
                + USER
                + " dbname=postgres application_name="
                + STANDBY_SLOT,
            "primary_slot_name",
            STANDBY_SLOT,
            "hot_standby",
            "on",
            "hot_standby_feedback",
            "on",
            "sync_replication_slots",
            "on"));
    primary = server(primaryData, primaryPort);
    standby = server(standbyData, 0);
    standbyPort = standby.getPort();
    Postmasters.awaitUntil(
        "standby streaming from the primary",
        CONDITION_WAIT,
        () ->
            queryBoolean(
                primaryPort,
                "select exists (select 1 from pg_stat_replication where state = 'streaming')"));
    LOG.info(
        "postgres pair started primaryPort={} standbyPort={} standbySlot={}",
        primaryPort,
        standby.getPort(),
        STANDBY_SLOT);
  }

  /** Starts one server; its output goes to {@code <dataDir>.log}, beside the data directory. */
  private EmbeddedPostgres server(Path dataDir, int port) throws IOException {
    Files.createDirectories(dataDir);
    Path log = dataDir.resolveSibling(dataDir.getFileName() + ".log");
    EmbeddedPostgres.Builder builder =
        EmbeddedPostgres.builder()
            .setDataDirectory(dataDir)
            .setCleanDataDirectory(false)
            .setOverrideWorkingDirectory(binaries.toFile())
            .setPGStartupWait(STARTUP_WAIT)
            .setRegisterShutdownHook(false) // one hook for the pair: it knows a killed primary
            .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()));
    if (port != 0) {
      builder.setPort(port);
    }
    commonSettings().forEach(builder::setServerConfig);
    return builder.start();
  }

  private static Map<String, String> commonSettings() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("wal_level", "logical");
    settings.put("max_replication_slots", "16");
    settings.put("max_wal_senders", "16");
    settings.put("max_connections", "100");
    settings.put("fsync", "off");
    settings.put("full_page_writes", "off");
    settings.put("synchronous_commit", "on");
    return settings;
  }

  public int primaryPort() {
    return primaryPort;
  }

  public int standbyPort() {
    return standbyPort;
  }

  /** JDBC URL of {@code database} on the server listening on {@code port} (primary or standby). */
  public static String jdbcUrl(int port, String database) {
    return "jdbc:postgresql://localhost:" + port + "/" + database;
  }

  /** Creates {@code database} on the primary; it reaches the standby by replication. */
  public void createDatabase(String database) {
    if (!database.matches("[a-z_][a-z0-9_]{0,62}")) {
      throw new IllegalArgumentException(
          "database name '" + database + "' is not a plain identifier");
    }
    execute(primaryPort(), "create database " + database);
  }

  /**
   * Whether the standby holds a synchronised copy of the logical slot {@code slot} ({@code synced =
   * true}, not temporary: PostgreSQL 17 keeps a copy temporary until the standby has caught up with
   * the primary's slot, and a temporary copy does not survive a promotion).
   */
  public boolean standbyHasSyncedSlot(String slot) {
    try (Connection c = DriverManager.getConnection(jdbcUrl(standbyPort(), "postgres"), USER, "");
        PreparedStatement s =
            c.prepareStatement(
                "select exists (select 1 from pg_replication_slots"
                    + " where slot_name = ? and synced and not temporary)")) {
      s.setString(1, slot);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the standby's slots", e);
    }
  }

  /**
   * Waits until the standby holds a synchronised copy of the logical slot {@code slot} ({@link
   * #standbyHasSyncedSlot}), helping PostgreSQL along while it waits. The copy becomes persistent
   * only once the primary's slot has moved past the standby's catalog xmin, and a logical slot's
   * catalog xmin moves at running-transactions records, which the primary writes on its own every
   * 15 s and at checkpoints; the standby's slot sync worker doubles its nap up to 30 s while
   * nothing changes. Left alone that took 81 s on the 2-core CI machine (PostgresFailoverIT). So
   * every round writes a running-transactions record on the primary ({@code
   * pg_log_standby_snapshot()}) and wakes the sync worker with a configuration reload on the
   * standby. The slot's consumer must keep confirming positions meanwhile (the relay does, with
   * every batch and heartbeat).
   *
   * @throws IllegalStateException if the copy is not there within {@code timeout}
   */
  public void awaitSyncedSlot(String slot, Duration timeout) {
    Postmasters.awaitUntil(
        "slot " + slot + " synchronised to the standby",
        timeout,
        Duration.ofMillis(250),
        () -> {
          if (standbyHasSyncedSlot(slot)) {
            return true;
          }
          execute(primaryPort(), "select pg_log_standby_snapshot()");
          execute(standbyPort(), "select pg_reload_conf()");
          return false;
        });
  }

  /**
   * Kills the primary as a host crash would: SIGKILL to its postmaster and every process it
   * started, no shutdown checkpoint, every connection broken. Returns once they are gone.
   */
  public synchronized void killPrimary() {
    long pid;
    try {
      pid = Long.parseLong(Files.readAllLines(primaryData.resolve("postmaster.pid")).getFirst());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the primary's postmaster.pid", e);
    }
    ProcessHandle postmaster =
        ProcessHandle.of(pid)
            .orElseThrow(() -> new IllegalStateException("primary postmaster " + pid + " is gone"));
    List<ProcessHandle> children = postmaster.descendants().toList();
    postmaster.destroyForcibly();
    children.forEach(ProcessHandle::destroyForcibly);
    primaryKilled = true;
    for (ProcessHandle process : Stream.concat(Stream.of(postmaster), children.stream()).toList()) {
      try {
        process.onExit().get(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while killing the primary", e);
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException("primary process " + process.pid() + " did not exit", e);
      }
    }
    LOG.info("postgres primary killed pid={} processes={}", pid, children.size() + 1);
  }

  /** Promotes the standby ({@code pg_promote()}, waiting up to 60 s) and checks it is a primary. */
  public synchronized void promoteStandby() {
    if (!queryBoolean(standbyPort(), "select pg_promote(true, 60)")) {
      throw new IllegalStateException("the standby did not finish promotion within 60 s");
    }
    Postmasters.awaitUntil(
        "promoted standby out of recovery",
        CONDITION_WAIT,
        () -> !queryBoolean(standbyPort(), "select pg_is_in_recovery()"));
    promoted = true;
    LOG.info("postgres standby promoted port={}", standbyPort());
  }

  /**
   * Stops the server that is the primary now (the promoted standby after a failover) with a fast
   * shutdown, keeping its data; before a failover the standby keeps trying to reconnect.
   */
  public synchronized void stopPrimary() {
    EmbeddedPostgres current = promoted ? standby : primary;
    if (current == null || (!promoted && primaryKilled)) {
      return;
    }
    try {
      Postmasters.stop(current, promoted ? standbyData : primaryData);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stop the primary", e);
    }
    if (promoted) {
      standby = null;
    } else {
      primary = null;
    }
  }

  /** Starts the primary again (same port and data) after {@link #stopPrimary()}. */
  public synchronized void startPrimary() {
    try {
      if (promoted && standby == null) {
        standby = server(standbyData, standbyPort);
      } else if (!promoted && primary == null && !primaryKilled) {
        primary = server(primaryData, primaryPort);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the primary again", e);
    }
  }

  private static void execute(int port, String sql) {
    try (Connection c = DriverManager.getConnection(jdbcUrl(port, "postgres"), USER, "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("statement failed on port " + port + ": " + sql, e);
    }
  }

  private static boolean queryBoolean(int port, String sql) {
    try (Connection c = DriverManager.getConnection(jdbcUrl(port, "postgres"), USER, "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getBoolean(1);
    } catch (SQLException e) {
      throw new IllegalStateException("query failed on port " + port + ": " + sql, e);
    }
  }

  /** Stops the standby and (unless it was killed) the primary; keeps the first failure. */
  @Override
  public synchronized void close() {
    if (Thread.currentThread() != stopOnExit) {
      try {
        Runtime.getRuntime().removeShutdownHook(stopOnExit);
      } catch (IllegalStateException alreadyExiting) {
        // The JVM is shutting down: the hook closes the pair (again, harmlessly).
      }
    }
    RuntimeException first = null;
    for (EmbeddedPostgres server :
        new EmbeddedPostgres[] {standby, primaryKilled ? null : primary}) {
      if (server == null) {
        continue;
      }
      try {
        server.close();
      } catch (IOException | RuntimeException e) {
        if (first == null) {
          first = new IllegalStateException("cannot stop embedded PostgreSQL " + server, e);
        } else {
          first.addSuppressed(e);
        }
      }
    }
    standby = null;
    primary = null;
    if (first != null) {
      throw first;
    }
  }
}
