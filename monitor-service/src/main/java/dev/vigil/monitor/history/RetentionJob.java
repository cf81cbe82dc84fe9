package dev.vigil.monitor.history;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes check history older than the retention age, {@code batch} rows per transaction. It never
 * locks {@code alert_state}, and skips history rows another transaction holds, so recording is
 * never blocked behind it; a large backlog is worked off in many short transactions.
 */
public final class RetentionJob implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RetentionJob.class);

  private static final String DELETE_BATCH =
      """
      delete from check_history
       where id in (select id from check_history
                     where recorded_at < ?
                     order by id
                     limit ?
                       for update skip locked)
      """;

  private final DataSource dataSource;
  private final Clock clock;
  private final Duration retention;
  private final int batch;
  private final Duration interval;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> Thread.ofPlatform().name("history-retention").daemon().unstarted(runnable));

  public RetentionJob(
      DataSource dataSource, Clock clock, Duration retention, int batch, Duration interval) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.retention = retention;
    this.batch = batch;
    this.interval = interval;
  }

  public void start() {
    timer.scheduleWithFixedDelay(
        this::runSafely, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Deletes every expired row, batch by batch.
   *
   * @return rows deleted
   */
  public long runOnce() throws SQLException {
    Timestamp cutoff = Timestamp.from(clock.instant().minus(retention));
    long total = 0;
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(DELETE_BATCH)) {
      connection.setAutoCommit(true);
      int deleted;
      do {
        statement.setTimestamp(1, cutoff);
        statement.setInt(2, batch);
        deleted = statement.executeUpdate();
        total += deleted;
      } while (deleted == batch && !Thread.currentThread().isInterrupted());
    }
    if (total > 0) {
      LOG.info("history trimmed rows={} older_than={}", total, cutoff.toInstant());
    }
    return total;
  }

  private void runSafely() {
    try {
      runOnce();
    } catch (SQLException | RuntimeException e) {
      LOG.warn("history retention failed, retrying next run error={}", e.toString());
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
