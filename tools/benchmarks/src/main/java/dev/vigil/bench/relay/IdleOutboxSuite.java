package dev.vigil.bench.relay;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Suite;
import dev.vigil.relay.RelayService;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Idle outbox: the relay streams while nothing is written to the outbox for minutes, and another
 * table of the same database takes a steady stream of writes. Without heartbeats the slot would
 * hold back every byte of that WAL; with them the relay confirms a recent position every heartbeat
 * interval. Reported: WAL written, the slot's lag ({@code confirmed_flush_lsn}) and the WAL it
 * retains ({@code restart_lsn}), largest over each half of the run and at its end, sampled every
 * second. One run (it is long); a lag that grows with time shows as a second half far above the
 * first.
 */
public final class IdleOutboxSuite implements Suite {
  public static final String NAME = Cases.IDLE_OUTBOX;
  public static final String CASE = Cases.IDLE_OUTBOX_CASE;
  private static final String DATABASE = "bench_idle";
  private static final String TOPIC = "bench.idle";
  private static final int ROW_BYTES = 1024;
  private static final int ROWS_PER_COMMIT = 100;
  private static final Duration COMMIT_PAUSE = Duration.ofMillis(100); // ~1 MB/s of rows

  private static final String SLOT =
      """
      select (pg_current_wal_lsn() - confirmed_flush_lsn)::bigint,
             (pg_current_wal_lsn() - restart_lsn)::bigint,
             (pg_current_wal_lsn() - '0/0')::bigint
        from pg_replication_slots where slot_name = ?
      """;

  @Override
  public void run(BenchContext ctx) throws Exception {
    DataSource db = ctx.infra().monitorDatabase(DATABASE, 4);
    ctx.infra().createTopic(TOPIC, PARTITIONS);
    Duration length = ctx.options().quick() ? Duration.ofSeconds(30) : Duration.ofMinutes(5);
    String slot = VigilRelay.settings(ctx.infra(), DATABASE, TOPIC).get("VIGIL_RELAY_SLOT");
    try (Connection writer = db.getConnection();
        Connection sampler = db.getConnection();
        Statement ddl = writer.createStatement()) {
      ddl.execute("create table bench_noise (id bigserial primary key, pad text not null)");
      try (RelayService relay = VigilRelay.start(ctx.infra(), DATABASE, TOPIC)) {
        Map<String, Double> m = measure(writer, sampler, slot, length);
        ctx.addOneRun(
            NAME,
            CASE,
            m,
            "no outbox rows; ~1 MB/s into another table for "
                + length.toSeconds()
                + " s; default heartbeat interval (10 s); one run");
      }
    }
  }

  private static Map<String, Double> measure(
      Connection writer, Connection sampler, String slot, Duration length) throws SQLException {
    writer.setAutoCommit(false);
    long start = System.nanoTime();
    long end = start + length.toNanos();
    long half = start + length.toNanos() / 2;
    long nextSample = start;
    long[] first = sample(sampler, slot);
    long[] last = first;
    long maxLagFirstHalf = 0;
    long maxLagSecondHalf = 0;
    long maxRetained = 0;
    String pad = "x".repeat(ROW_BYTES);
    try (PreparedStatement insert =
        writer.prepareStatement(
            "insert into bench_noise (pad) select ? from generate_series(1, "
                + ROWS_PER_COMMIT
                + ")")) {
      while (System.nanoTime() < end) {
        insert.setString(1, pad);
        insert.executeUpdate();
        writer.commit();
        if (System.nanoTime() >= nextSample) {
          last = sample(sampler, slot);
          if (System.nanoTime() < half) {
            maxLagFirstHalf = Math.max(maxLagFirstHalf, last[0]);
          } else {
            maxLagSecondHalf = Math.max(maxLagSecondHalf, last[0]);
          }
          maxRetained = Math.max(maxRetained, last[1]);
          nextSample += Duration.ofSeconds(1).toNanos();
        }
        sleep(COMMIT_PAUSE);
      }
    }
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("seconds", (System.nanoTime() - start) / 1e9);
    m.put("wal_written_mb", (last[2] - first[2]) / 1e6);
    m.put("max_lag_first_half_mb", maxLagFirstHalf / 1e6);
    m.put("max_lag_second_half_mb", maxLagSecondHalf / 1e6);
    m.put("lag_at_end_mb", last[0] / 1e6);
    m.put("max_retained_mb", maxRetained / 1e6);
    return m;
  }

  /** Slot lag, WAL retained by the slot and the current WAL position, in bytes. */
  private static long[] sample(Connection connection, String slot) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(SLOT)) {
      statement.setString(1, slot);
      try (ResultSet rs = statement.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("replication slot " + slot + " does not exist");
        }
        return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
      }
    }
  }

  private static void sleep(Duration pause) {
    try {
      Thread.sleep(pause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
