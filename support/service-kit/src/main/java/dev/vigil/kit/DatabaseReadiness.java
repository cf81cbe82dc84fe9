package dev.vigil.kit;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;

/**
 * The database part of a readiness check. While the database is down, taking a pooled connection
 * waits for the pool's connection timeout (10 s or more); a health probe must answer sooner, so the
 * check runs on a virtual thread and counts as failed once {@code timeout} passes (the thread then
 * ends on its own with the pool's timeout).
 */
public final class DatabaseReadiness {
  private DatabaseReadiness() {}

  /** Whether a connection from {@code dataSource} proves valid within {@code timeout}. */
  public static boolean answersWithin(DataSource dataSource, Duration timeout) {
    CompletableFuture<Boolean> check =
        CompletableFuture.supplyAsync(
            () -> {
              try (Connection connection = dataSource.getConnection()) {
                return connection.isValid((int) Math.max(1, timeout.toSeconds()));
              } catch (SQLException e) {
                return false;
              }
            },
            Thread::startVirtualThread);
    try {
      return check.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
