package dev.vigil.monitor.db;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Runs work in one short transaction: commit on success, roll back on any failure, connection
 * returned to the pool either way.
 */
public final class Transactions {
  private Transactions() {}

  /** Work that runs on a connection inside a transaction owned by someone else. */
  @FunctionalInterface
  public interface Work<T> {
    T apply(Connection connection) throws SQLException;
  }

  /**
   * Runs {@code work} in a new transaction on a connection from {@code dataSource}.
   *
   * @throws DatabaseException if the work or the commit failed (everything was rolled back)
   */
  public static <T> T inTransaction(DataSource dataSource, String doing, Work<T> work) {
    try (Connection connection = dataSource.getConnection()) {
      boolean autoCommit = connection.getAutoCommit();
      connection.setAutoCommit(false);
      try {
        T result = work.apply(connection);
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException | Error e) {
        rollbackQuietly(connection, e);
        throw e;
      } finally {
        connection.setAutoCommit(autoCommit);
      }
    } catch (SQLException e) {
      throw new DatabaseException(doing, e);
    }
  }

  private static void rollbackQuietly(Connection connection, Throwable cause) {
    try {
      connection.rollback();
    } catch (SQLException rollbackFailure) {
      cause.addSuppressed(rollbackFailure);
    }
  }
}
