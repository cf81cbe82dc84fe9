package dev.vigil.monitor.history;

import dev.vigil.contract.OutboxContract;
import dev.vigil.kit.PeriodicTask;
import dev.vigil.kit.db.DatabaseException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes rows older than their table's retention age: check history, and outbox rows the relay
 * streamed long ago. Each table is trimmed {@code batch} rows per transaction; the job never locks
 * {@code alert_state} and skips rows another transaction holds, so recording is never blocked
 * behind it, and a large backlog is worked off in many short transactions.
 *
 * <p>Once the relay's replication slot exists, deleting an outbox row cannot lose an alert: the
 * relay streams the insert from the WAL, which the slot keeps until the relay has published it,
 * whatever happens to the row later (the publication carries inserts only, so the delete itself is
 * not streamed). Rows written before a relay's first start reach Kafka through its {@code initial}
 * snapshot only while they are younger than the age; beyond that, the age only needs to outlast
 * what operators want to look up in the table.
 */
public final class RetentionJob implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RetentionJob.class);

  /**
   * One table to trim: rows whose {@code timeColumn} is older than {@code age} are deleted, {@code
   * keyColumn} (unique, indexed) picks them batch by batch. The names are code constants, never
   * input.
   */
  public record Trim(String table, String timeColumn, String keyColumn, Duration age) {
    public Trim {
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(timeColumn, "timeColumn");
      Objects.requireNonNull(keyColumn, "keyColumn");
      Objects.requireNonNull(age, "age");
    }

    /** Check history older than {@code age}. */
    public static Trim history(Duration age) {
      return new Trim("check_history", "recorded_at", "id", age);
    }

    /** Outbox rows written more than {@code age} ago. */
    public static Trim outbox(Duration age) {
      return new Trim(
          OutboxContract.TABLE, OutboxContract.COLUMN_CREATED_AT, OutboxContract.COLUMN_ID, age);
    }

    String deleteBatch() {
      return "delete from %1$s where %3$s in (select %3$s from %1$s where %2$s < ? limit ?"
              .formatted(table, timeColumn, keyColumn)
          + " for update skip locked)";
    }
  }

  private final DataSource dataSource;
  private final Clock clock;
  private final List<Trim> trims;
  private final int batch;
  private final Duration interval;
  private PeriodicTask timer;

  public RetentionJob(
      DataSource dataSource, Clock clock, List<Trim> trims, int batch, Duration interval) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.trims = List.copyOf(trims);
    this.batch = batch;
    this.interval = interval;
  }

  public void start() {
    timer = PeriodicTask.start("retention", interval, interval, this::runUnchecked);
  }

  /**
   * Deletes every expired row of every table, batch by batch.
   *
   * @return rows deleted per table
   * @throws SQLException the first failure, after every other table was trimmed
   */
  public Map<String, Long> runOnce() throws SQLException {
    Map<String, Long> deleted = new LinkedHashMap<>();
    SQLException failed = null;
    for (Trim trim : trims) {
      try {
        deleted.put(trim.table(), runOnce(trim));
      } catch (SQLException e) { // the other tables are still trimmed
        if (failed == null) {
          failed = e;
        } else {
          failed.addSuppressed(e);
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
    return deleted;
  }

  private long runOnce(Trim trim) throws SQLException {
    Timestamp cutoff = Timestamp.from(clock.instant().minus(trim.age()));
    long total = 0;
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(trim.deleteBatch())) {
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
      LOG.info("trimmed table={} rows={} older_than={}", trim.table(), total, cutoff.toInstant());
    }
    return total;
  }

  private void runUnchecked() {
    try {
      runOnce();
    } catch (SQLException e) {
      throw new DatabaseException("trimming old rows", e);
    }
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.close();
    }
  }
}
