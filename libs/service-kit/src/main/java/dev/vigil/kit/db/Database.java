package dev.vigil.kit.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.database.postgresql.PostgreSQLConfigurationExtension;

/**
 * A service's PostgreSQL: one connection pool, its Flyway migrations, and short explicit
 * transactions. Every Vigil service opens its database this way.
 */
public final class Database implements AutoCloseable {
  private final HikariDataSource pool;

  private Database(HikariDataSource pool) {
    this.pool = pool;
  }

  /**
   * Where and how to connect, and which migrations to apply.
   *
   * @param migrations Flyway location, e.g. {@code classpath:db/notifier}; null = none
   * @param historyTable Flyway history table, one per service so services can share a database
   */
  public record Options(
      String url,
      String user,
      String password,
      int poolSize,
      String poolName,
      String migrations,
      String historyTable) {
    public Options {
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(poolName, "poolName");
      if (poolSize < 1) {
        throw new IllegalArgumentException("poolSize must be at least 1, was " + poolSize);
      }
      if ((migrations == null) != (historyTable == null)) {
        throw new IllegalArgumentException("migrations and historyTable go together");
      }
    }
  }

  /**
   * Opens the pool and applies the pending migrations. Connections come out of the pool with
   * auto-commit on; {@link #inTransaction} turns it off for the work it runs.
   */
  public static Database open(Options options) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(options.url());
    config.setUsername(options.user());
    config.setPassword(options.password());
    config.setMaximumPoolSize(options.poolSize());
    config.setMinimumIdle(Math.min(2, options.poolSize()));
    config.setPoolName(options.poolName());
    config.setConnectionTimeout(10_000);
    HikariDataSource pool = new HikariDataSource(config);
    try {
      if (options.migrations() != null) {
        migrate(pool, options.migrations(), options.historyTable());
      }
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
    return new Database(pool);
  }

  /**
   * Applies every pending migration at {@code location}, recorded in {@code historyTable};
   * idempotent and safe to run from several instances at once.
   */
  public static void migrate(DataSource dataSource, String location, String historyTable) {
    FluentConfiguration flyway =
        Flyway.configure()
            .dataSource(dataSource)
            .locations(location)
            .table(historyTable)
            .baselineOnMigrate(true)
            .baselineVersion("0");
    // Flyway's default lock is a transaction-scoped advisory lock held open on a second
    // connection; a migration that builds an index concurrently waits for every open
    // transaction, that one included, and would hang. A session-level lock does the same job.
    flyway
        .getConfigurationExtension(PostgreSQLConfigurationExtension.class)
        .setTransactionalLock(false);
    flyway.load().migrate();
  }

  public DataSource dataSource() {
    return pool;
  }

  /** Work done inside one transaction. */
  @FunctionalInterface
  public interface TxWork<T> {
    T run(Connection connection) throws SQLException;
  }

  /**
   * Runs {@code work} in one transaction: commit on return, rollback on any exception.
   *
   * @throws DatabaseException wrapping the SQL failure, saying what was being done
   */
  public <T> T inTransaction(String what, TxWork<T> work) {
    return inTransaction(pool, what, work);
  }

  /** {@link #inTransaction(String, TxWork)} on a connection from any data source. */
  public static <T> T inTransaction(DataSource dataSource, String what, TxWork<T> work) {
    try (Connection connection = dataSource.getConnection()) {
      boolean autoCommit = connection.getAutoCommit();
      connection.setAutoCommit(false);
      try {
        T result = work.run(connection);
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException | Error e) {
        rollbackQuietly(connection, e);
        throw e;
      } finally {
        connection.setAutoCommit(autoCommit);
      }
    } catch (SQLException e) {
      throw new DatabaseException(what, e);
    }
  }

  private static void rollbackQuietly(Connection connection, Throwable cause) {
    try {
      connection.rollback();
    } catch (SQLException rollbackFailure) {
      cause.addSuppressed(rollbackFailure);
    }
  }

  @Override
  public void close() {
    pool.close();
  }
}
