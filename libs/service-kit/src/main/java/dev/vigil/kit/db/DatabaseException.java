package dev.vigil.kit.db;

import java.sql.SQLException;

/** A database call failed; wraps the {@link SQLException} once, with what was being done. */
public final class DatabaseException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public DatabaseException(String doing, SQLException cause) {
    super(doing + " failed: " + cause.getMessage(), cause);
  }

  /** The SQLSTATE of the failure, or null when the driver gave none. */
  public String sqlState() {
    return ((SQLException) getCause()).getSQLState();
  }
}
