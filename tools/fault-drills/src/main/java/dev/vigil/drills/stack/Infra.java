package dev.vigil.drills.stack;

import dev.vigil.harness.EmbeddedKafkaBroker;
import dev.vigil.harness.EmbeddedPostgresServer;
import dev.vigil.harness.failover.PostgresStandbyPair;
import dev.vigil.harness.failover.TcpForwarder;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL and Kafka, started inside the drill JVM with their data under the work directory. Both
 * can be stopped and started again on the same port with the same data, which is how the drills
 * restart them mid-stream.
 *
 * <p>Databases: {@value #VIGIL_DB} holds the monitor's outbox and the notifier's receipts (the
 * services' migrations use separate history tables so they can share it), and the relay's offsets
 * if it keeps them in the database; {@value #RECEIVER_DB} is the reference receiver's own store.
 *
 * <p>{@link #startReplicated} runs PostgreSQL as a primary with a synchronous streaming standby
 * ({@link PostgresStandbyPair}) behind one address that every process uses ({@link TcpForwarder},
 * what a VIP or a cloud writer endpoint is); {@link #failOver()} kills the primary and moves the
 * address to the promoted standby.
 */
public final class Infra implements AutoCloseable {
  public static final String VIGIL_DB = "vigil";
  public static final String RECEIVER_DB = "receiver";

  private static final Logger LOG = LoggerFactory.getLogger(Infra.class);

  private final EmbeddedPostgresServer postgres;
  private final PostgresStandbyPair pair;
  private final TcpForwarder address;
  private final EmbeddedKafkaBroker kafka;
  private final Path workDir;
  private Path snapshot;

  private Infra(
      Path workDir,
      EmbeddedPostgresServer postgres,
      PostgresStandbyPair pair,
      TcpForwarder address,
      EmbeddedKafkaBroker kafka) {
    this.workDir = workDir;
    this.postgres = postgres;
    this.pair = pair;
    this.address = address;
    this.kafka = kafka;
  }

  /** Starts both servers under {@code workDir} and applies the monitor's outbox migrations. */
  public static Infra start(Path workDir) {
    EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start(workDir.resolve("pg"), 0, false);
    EmbeddedKafkaBroker kafka = startKafka(workDir, postgres::stop);
    Infra infra = new Infra(workDir, postgres, null, null, kafka);
    postgres.createDatabase(VIGIL_DB);
    postgres.createDatabase(RECEIVER_DB);
    infra.migrate();
    LOG.info("drill infra up postgresPort={} kafka={}", postgres.port(), kafka.bootstrapServers());
    return infra;
  }

  /** As {@link #start}, with PostgreSQL as a primary and a standby behind one moving address. */
  public static Infra startReplicated(Path workDir) {
    PostgresStandbyPair pair = PostgresStandbyPair.start(workDir.resolve("pg-pair"));
    TcpForwarder address = TcpForwarder.start(pair.primaryPort());
    EmbeddedKafkaBroker kafka =
        startKafka(
            workDir,
            () -> {
              address.close();
              pair.close();
            });
    Infra infra = new Infra(workDir, null, pair, address, kafka);
    pair.createDatabase(VIGIL_DB);
    pair.createDatabase(RECEIVER_DB);
    infra.migrate();
    LOG.info(
        "drill infra up replicated=true address={} primaryPort={} standbyPort={} kafka={}",
        address.port(),
        pair.primaryPort(),
        pair.standbyPort(),
        kafka.bootstrapServers());
    return infra;
  }

  /** Starts the broker; if it cannot, stops what was started before it and rethrows. */
  private static EmbeddedKafkaBroker startKafka(Path workDir, Runnable stopPostgres) {
    try {
      return EmbeddedKafkaBroker.start(workDir.resolve("kafka"), 0);
    } catch (RuntimeException e) {
      stopPostgres.run();
      throw e;
    }
  }

  private void migrate() {
    Flyway.configure()
        .dataSource(jdbcUrl(VIGIL_DB), EmbeddedPostgresServer.USER, "")
        .locations("classpath:db/monitor")
        .table("flyway_monitor_history")
        .load()
        .migrate();
  }

  public String jdbcUrl(String database) {
    return pair == null
        ? postgres.jdbcUrl(database)
        : PostgresStandbyPair.jdbcUrl(address.port(), database);
  }

  /** Whether PostgreSQL runs as a primary and a standby ({@link #startReplicated}). */
  public boolean replicated() {
    return pair != null;
  }

  /**
   * Waits until the standby holds a synchronised, persistent copy of the logical slot {@code slot}
   * ({@link PostgresStandbyPair#awaitSyncedSlot}).
   */
  public void awaitSyncedSlot(String slot, Duration timeout) {
    requirePair().awaitSyncedSlot(slot, timeout);
  }

  /**
   * SIGKILL to the primary, the standby promoted, the address moved to it: a failover as Patroni or
   * a cloud database performs it. Once only; afterwards there is no standby.
   */
  public void failOver() {
    PostgresStandbyPair p = requirePair();
    p.killPrimary();
    p.promoteStandby();
    address.retarget(p.standbyPort());
  }

  private PostgresStandbyPair requirePair() {
    if (pair == null) {
      throw new IllegalStateException("PostgreSQL runs without a standby (Infra.startReplicated)");
    }
    return pair;
  }

  public String dbUser() {
    return EmbeddedPostgresServer.USER;
  }

  public Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(jdbcUrl(database), dbUser(), "");
  }

  public String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  public void stopKafka() {
    kafka.stop();
  }

  public void startKafka() {
    kafka.start();
  }

  public void stopPostgres() {
    if (pair == null) {
      postgres.stop();
    } else {
      pair.stopPrimary();
    }
  }

  /**
   * Copies the stopped PostgreSQL server's data folder (a volume snapshot, replication slots
   * included) beside it, replacing an earlier copy; single server only.
   */
  public synchronized void snapshotPostgres() {
    EmbeddedPostgresServer server = requireSingle();
    // Beside the server's data, so it is deleted with it after the run.
    snapshot = workDir.resolve("pg").resolve("snapshot-" + System.nanoTime());
    server.copyDataTo(snapshot);
  }

  /** Replaces the stopped server's data folder with the {@link #snapshotPostgres} copy. */
  public synchronized void restorePostgresSnapshot() {
    if (snapshot == null) {
      throw new IllegalStateException("no snapshot of PostgreSQL taken");
    }
    requireSingle().restoreDataFrom(snapshot);
  }

  private EmbeddedPostgresServer requireSingle() {
    if (pair != null) {
      throw new IllegalStateException("PostgreSQL runs as a primary and a standby here");
    }
    return postgres;
  }

  public void startPostgres() {
    if (pair == null) {
      postgres.start();
    } else {
      pair.startPrimary();
    }
  }

  @Override
  public void close() {
    RuntimeException first = null;
    try {
      kafka.stop();
    } catch (RuntimeException e) {
      first = e;
    }
    try {
      if (pair == null) {
        postgres.stop();
      } else {
        address.close();
        pair.close();
      }
    } catch (RuntimeException e) {
      if (first == null) {
        first = e;
      } else {
        first.addSuppressed(e);
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
