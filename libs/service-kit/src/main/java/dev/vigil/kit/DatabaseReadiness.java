package dev.vigil.kit;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * The database part of a readiness check. While the database is down, taking a pooled connection
 * waits for the pool's connection timeout (10 s or more); a health probe must answer sooner, so the
 * check runs on a virtual thread and counts as failed once the timeout passes (the thread then ends
 * on its own with the pool's timeout). Concurrent probes share the check in flight, so a flood of
 * probes during an outage does not queue a thread per probe in front of the pool.
 */
public final class DatabaseReadiness {
  /** How long a health probe waits for the database by default. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

  private final DataSource dataSource;
  private final Duration timeout;
  private final AtomicReference<CompletableFuture<Boolean>> inFlight = new AtomicReference<>();

  public DatabaseReadiness(DataSource dataSource, Duration timeout) {
    this.dataSource = dataSource;
    this.timeout = timeout;
  }

  /** Whether a connection from the data source proves valid within the timeout. */
  public boolean answers() {
    CompletableFuture<Boolean> check = inFlight.get();
    if (check == null || check.isDone()) {
      CompletableFuture<Boolean> fresh = new CompletableFuture<>();
      if (inFlight.compareAndSet(check, fresh)) {
        Thread.startVirtualThread(() -> fresh.complete(validConnection()));
        check = fresh;
      } else {
        check = inFlight.get();
      }
    }
    try {
      return check.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private boolean validConnection() {
    try (Connection connection = dataSource.getConnection()) {
      return connection.isValid((int) Math.max(1, timeout.toSeconds()));
    } catch (SQLException | RuntimeException e) {
      return false;
    }
  }
}
