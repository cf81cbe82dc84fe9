package dev.vigil.monitor.db;

import java.sql.SQLException;

/** A database call failed; wraps the {@link SQLException} once, with what was being done. */
public final class DatabaseException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public DatabaseException(String doing, SQLException cause) {
    super(doing + ": " + cause.getMessage(), cause);
  }
}
