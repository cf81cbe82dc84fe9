package dev.vigil.notifier.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.database.postgresql.PostgreSQLConfigurationExtension;

/**
 * A pooled PostgreSQL connection and short transactions on it. Every transaction is explicit
 * (auto-commit off) and either commits or rolls back before the connection returns to the pool.
 */
public final class Database implements AutoCloseable {
  private final HikariDataSource pool;

  private Database(HikariDataSource pool) {
    this.pool = pool;
  }

  /**
   * Opens a pool and applies the migrations at {@code location} using its own history table, so
   * several Vigil components can share one database.
   */
  public static Database open(
      String url,
      String user,
      String password,
      int poolSize,
      String poolName,
      String location,
      String historyTable) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(poolSize);
    config.setMinimumIdle(Math.min(2, poolSize));
    config.setPoolName(poolName);
    config.setAutoCommit(false);
    config.setConnectionTimeout(10_000);
    HikariDataSource pool = new HikariDataSource(config);
    try {
      FluentConfiguration flyway =
          Flyway.configure()
              .dataSource(pool)
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
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
    return new Database(pool);
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
   * @throws DatabaseException wrapping the SQL failure
   */
  public <T> T inTransaction(String what, TxWork<T> work) {
    try (Connection connection = pool.getConnection()) {
      try {
        T result = work.run(connection);
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(connection, e);
        throw e;
      }
    } catch (SQLException e) {
      throw new DatabaseException(what + " failed: " + e.getMessage(), e);
    }
  }

  private static void rollbackQuietly(Connection connection, Exception cause) {
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
