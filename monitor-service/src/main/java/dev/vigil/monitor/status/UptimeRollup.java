package dev.vigil.monitor.status;

import dev.vigil.kit.PeriodicTask;
import dev.vigil.kit.db.DatabaseException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sums check history into {@code status_hourly}: per service and clock hour (UTC), the UP and DOWN
 * checks and their latencies. The status page reads uptime and charts from these buckets, so a page
 * costs one row per service and hour whatever the check rate, and 30-day uptime survives the
 * history's shorter retention.
 *
 * <p>Each run recomputes every hour from the one the previous successful run started in (minus a
 * margin for transactions that committed late), the first run everything retained. A bucket only
 * grows, so an upsert never replaces a fuller bucket with a smaller one (history already trimmed,
 * or a concurrent instance behind): several monitor instances may run this at once. Buckets older
 * than {@link #KEEP} are deleted.
 *
 * <p>Each run also sums the UTC days its hours touched into {@code uptime_daily}, kept {@link
 * #KEEP_DAYS}: the uptime API reads ranges older than the hourly buckets from there. Checks taken
 * in maintenance are counted apart in both, never as UP or DOWN.
 */
public final class UptimeRollup implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(UptimeRollup.class);

  /** Longest window shown (30 days) plus a day; the same age as in {@link #TRIM}. */
  static final Duration KEEP = Duration.ofDays(31);

  private static final String NOW = "select clock_timestamp()";

  // Maintenance checks (recorded while a window or silence held the service) count apart: up_count
  // and down_count hold the others. A bucket's size is all three.
  private static final String SUM =
      """
      insert into status_hourly as s
             (service, hour, up_count, down_count, maintenance_count, latency_sum_ms,
              latency_count, latency_max_ms)
      select service, date_trunc('hour', recorded_at, 'UTC'),
             count(*) filter (where status = 'UP' and not maintenance),
             count(*) filter (where status = 'DOWN' and not maintenance),
             count(*) filter (where maintenance),
             coalesce(sum(latency_ms), 0), count(latency_ms), max(latency_ms)
        from check_history
       where recorded_at >= date_trunc('hour', ?::timestamptz - interval '5 minutes', 'UTC')
       group by 1, 2
       order by 1, 2
      on conflict (service, hour) do update
         set up_count = excluded.up_count, down_count = excluded.down_count,
             maintenance_count = excluded.maintenance_count,
             latency_sum_ms = excluded.latency_sum_ms, latency_count = excluded.latency_count,
             latency_max_ms = excluded.latency_max_ms
       where excluded.up_count + excluded.down_count + excluded.maintenance_count
             > s.up_count + s.down_count + s.maintenance_count
      """;

  // The UTC days touched by the hours just summed, from their hourly buckets (kept 31 days, so a
  // day is complete in them while it is recomputed); a day only grows, like a bucket.
  private static final String DAYS =
      """
      insert into uptime_daily as d (service, day, up_count, down_count, maintenance_count)
      select service, (hour at time zone 'UTC')::date,
             sum(up_count), sum(down_count), sum(maintenance_count)
        from status_hourly
       where hour >= date_trunc('day', ?::timestamptz - interval '5 minutes', 'UTC')
       group by 1, 2
       order by 1, 2
      on conflict (service, day) do update
         set up_count = excluded.up_count, down_count = excluded.down_count,
             maintenance_count = excluded.maintenance_count
       where excluded.up_count + excluded.down_count + excluded.maintenance_count
             > d.up_count + d.down_count + d.maintenance_count
      """;

  private static final String TRIM =
      "delete from status_hourly where hour < ?::timestamptz - interval '31 days'";

  /** How long daily sums are kept: a year of daily uptime, and a month more. */
  static final Duration KEEP_DAYS = Duration.ofDays(400);

  private static final String TRIM_DAYS =
      """
      delete from uptime_daily
       where day < ((?::timestamptz - interval '400 days') at time zone 'UTC')::date
      """;

  private static final String FOREIGN_KEY_VIOLATION = "23503";
  private static final int ATTEMPTS = 3;

  private final DataSource dataSource;
  private final Duration interval;
  private Instant coveredFrom;
  private PeriodicTask timer;

  public UptimeRollup(DataSource dataSource, Duration interval) {
    this.dataSource = dataSource;
    this.interval = interval;
  }

  /** Runs once at once (filling the buckets from the retained history), then every interval. */
  public UptimeRollup start() {
    timer = PeriodicTask.start("status-rollup", Duration.ZERO, interval, this::runUnchecked);
    return this;
  }

  /**
   * Recomputes the buckets of every hour since the last successful run.
   *
   * @return buckets written or grown
   */
  synchronized int runOnce() throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        return sumOnce();
      } catch (SQLException e) {
        // A target deleted while its history was summed (the delete commits between the
        // statement's snapshot and its foreign key check): its history is gone with it, so the
        // next statement no longer sees it.
        if (!FOREIGN_KEY_VIOLATION.equals(e.getSQLState()) || attempt == ATTEMPTS) {
          throw e;
        }
        LOG.info("status rollup raced a target's deletion, summing again error={}", e.toString());
      }
    }
  }

  private int sumOnce() throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(true);
      Instant now = databaseNow(connection);
      Instant from = coveredFrom == null ? now.minus(KEEP) : coveredFrom;
      int buckets;
      try (PreparedStatement sum = connection.prepareStatement(SUM)) {
        sum.setTimestamp(1, Timestamp.from(from));
        buckets = sum.executeUpdate();
      }
      try (PreparedStatement days = connection.prepareStatement(DAYS)) {
        days.setTimestamp(1, Timestamp.from(from));
        days.executeUpdate();
      }
      int trimmed;
      try (PreparedStatement trim = connection.prepareStatement(TRIM)) {
        trim.setTimestamp(1, Timestamp.from(now));
        trimmed = trim.executeUpdate();
      }
      try (PreparedStatement trim = connection.prepareStatement(TRIM_DAYS)) {
        trim.setTimestamp(1, Timestamp.from(now));
        trimmed += trim.executeUpdate();
      }
      if (coveredFrom == null || trimmed > 0) {
        LOG.info("status rollup from={} buckets={} trimmed={}", from, buckets, trimmed);
      }
      coveredFrom = now;
      return buckets;
    }
  }

  private static Instant databaseNow(Connection connection) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(NOW);
        ResultSet rs = statement.executeQuery()) {
      rs.next();
      return rs.getTimestamp(1).toInstant();
    }
  }

  private void runUnchecked() {
    try {
      runOnce();
    } catch (SQLException e) {
      throw new DatabaseException("summing check history into hourly buckets", e);
    }
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.close();
    }
  }
}
