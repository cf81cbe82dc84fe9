package dev.vigil.monitor.replay;

import dev.vigil.kit.db.DatabaseException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a range of outbox rows again, with their original event ids, through the relay's normal
 * path. Each row of a chunk is deleted and inserted again, unchanged ({@code id}, {@code seq},
 * {@code created_at} and payload kept), in one transaction per chunk: the new insert reaches the
 * WAL, the relay (or Kafka Connect) publishes it like any other, and the delete is skipped by both
 * (they publish inserts only). A chunk is one Kafka transaction at an exactly-once relay, so a
 * replay of any size stays within the relay's transaction timeout.
 *
 * <p>Rows go out in {@code seq} order, after whatever was published before them: a consumer sees a
 * replayed event again, later than newer events of the same service. The notifier recognises the
 * event id by its receipt and pages nothing twice, as long as the receipt is kept ({@code
 * VIGIL_NOTIFIER_RECEIPT_RETENTION}). One replay at a time, across every monitor (a PostgreSQL
 * advisory lock); a second one is refused, not queued.
 */
public final class OutboxReplay {
  private static final Logger LOG = LoggerFactory.getLogger(OutboxReplay.class);

  /** The advisory lock key of replays ("vigil replay" in ASCII, an arbitrary constant). */
  static final long LOCK_KEY = 0x76_69_67_69_6c_72_70_6cL;

  private static final String COLUMNS =
      "id, aggregatetype, aggregateid, type, payload, incident_id, schema_version, created_at, seq,"
          + " traceparent";

  private final DataSource dataSource;
  private final long maxRows;
  private final int chunkRows;
  private final Counter replayed;

  /**
   * @param maxRows the largest selection accepted ({@code VIGIL_MONITOR_REPLAY_MAX_ROWS})
   * @param chunkRows rows per transaction ({@code VIGIL_MONITOR_REPLAY_CHUNK_ROWS})
   */
  public OutboxReplay(DataSource dataSource, long maxRows, int chunkRows, MeterRegistry registry) {
    this.dataSource = dataSource;
    this.maxRows = maxRows;
    this.chunkRows = chunkRows;
    this.replayed =
        Counter.builder("vigil.monitor.outbox.replayed")
            .description("Outbox rows published again by a replay")
            .baseUnit("events")
            .register(registry);
  }

  /**
   * Replays the rows {@code selection} matches, or with {@code dryRun} only counts them.
   *
   * @throws InvalidReplayException if the selection is empty, over the limit or names an unknown
   *     service (nothing written)
   * @throws ReplayBusyException if another replay is running (nothing written)
   */
  public ReplayResult replay(ReplaySelection selection, boolean dryRun) {
    try (Connection lockSession = dataSource.getConnection()) {
      lockSession.setAutoCommit(true);
      if (!tryLock(lockSession)) {
        throw new ReplayBusyException();
      }
      try {
        return replayLocked(selection, dryRun);
      } finally {
        unlock(lockSession);
      }
    } catch (SQLException e) {
      throw new DatabaseException("replay of " + selection + " failed", e);
    }
  }

  private ReplayResult replayLocked(ReplaySelection selection, boolean dryRun) throws SQLException {
    Bounds bounds = bounds(selection);
    if (bounds.rows == 0) {
      if (selection.service() != null && !known(selection.service())) {
        throw InvalidReplayException.invalid(
            "service", "unknown service " + selection.service() + ": no target and no outbox row");
      }
      throw InvalidReplayException.selectionRefused("no outbox row matches " + selection);
    }
    if (bounds.rows > maxRows) {
      throw InvalidReplayException.selectionRefused(
          "the selection matches "
              + bounds.rows
              + " rows, more than VIGIL_MONITOR_REPLAY_MAX_ROWS="
              + maxRows
              + "; narrow it (fromSeq/toSeq, from/to, service)");
    }
    if (dryRun) {
      return new ReplayResult(bounds.rows, 0, 0, bounds.firstSeq, bounds.lastSeq, true);
    }
    LOG.info(
        "replay started {} rows={} first_seq={} last_seq={} chunk_rows={}",
        selection,
        bounds.rows,
        bounds.firstSeq,
        bounds.lastSeq,
        chunkRows);
    long done = 0;
    int chunks = 0;
    long after = bounds.firstSeq - 1;
    while (after < bounds.lastSeq) {
      Chunk chunk = replayChunk(selection, after, bounds.lastSeq);
      if (chunk.rows == 0) {
        break;
      }
      done += chunk.rows;
      chunks++;
      replayed.increment(chunk.rows);
      after = chunk.lastSeq;
    }
    LOG.info("replay finished {} replayed={} chunks={}", selection, done, chunks);
    return new ReplayResult(bounds.rows, done, chunks, bounds.firstSeq, bounds.lastSeq, false);
  }

  /** One chunk, one transaction: the next {@code chunkRows} rows after {@code after}, moved. */
  private Chunk replayChunk(ReplaySelection selection, long after, long lastSeq)
      throws SQLException {
    List<Object> parameters = new ArrayList<>();
    String where = selection.where(parameters);
    // Deleted and inserted again by one statement, in seq order: the insert takes each row as the
    // delete returns it, so its primary key is free again; the insert trigger recomputes the
    // CloudEvents columns from the same values.
    String sql =
        "with moved as (delete from outbox where seq in (select seq from outbox where "
            + where
            + " and seq > ? and seq <= ? order by seq limit ?) returning "
            + COLUMNS
            + ") insert into outbox ("
            + COLUMNS
            + ") overriding system value select "
            + COLUMNS
            + " from moved order by seq returning seq";
    parameters.add(after);
    parameters.add(lastSeq);
    parameters.add(chunkRows);
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        bind(ps, parameters);
        long rows = 0;
        long last = after;
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            rows++;
            last = Math.max(last, rs.getLong(1));
          }
        }
        c.commit();
        return new Chunk(rows, last);
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  private Bounds bounds(ReplaySelection selection) throws SQLException {
    List<Object> parameters = new ArrayList<>();
    String sql =
        "select count(*), coalesce(min(seq), 0), coalesce(max(seq), 0) from outbox where "
            + selection.where(parameters);
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, parameters);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new Bounds(rs.getLong(1), rs.getLong(2), rs.getLong(3));
      }
    }
  }

  private boolean known(String service) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "select exists (select 1 from targets where name = ?)"
                    + " or exists (select 1 from outbox where aggregateid = ?)")) {
      ps.setString(1, service);
      ps.setString(2, service);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  private static boolean tryLock(Connection c) throws SQLException {
    return advisoryLock(c, "pg_try_advisory_lock");
  }

  private static void unlock(Connection c) throws SQLException {
    advisoryLock(c, "pg_advisory_unlock");
  }

  private static boolean advisoryLock(Connection c, String function) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("select " + function + "(?)")) {
      ps.setLong(1, LOCK_KEY);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  private static void bind(PreparedStatement ps, List<Object> parameters) throws SQLException {
    for (int i = 0; i < parameters.size(); i++) {
      ps.setObject(i + 1, parameters.get(i));
    }
  }

  private record Bounds(long rows, long firstSeq, long lastSeq) {}

  private record Chunk(long rows, long lastSeq) {}
}
