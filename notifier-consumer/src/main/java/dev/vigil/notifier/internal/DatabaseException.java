package dev.vigil.notifier.internal;

import java.sql.SQLException;

/** A database operation failed; the message says which one. */
public final class DatabaseException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public DatabaseException(String message, SQLException cause) {
    super(message, cause);
  }
}
