package dev.vigil.bench.outbox;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.OutboxContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * Writers that commit FAILED alert rows, one row per transaction (as the monitor's recorder does),
 * into an outbox-shaped table, either as fast as they can or at a fixed total rate. The moment each
 * commit returned is kept by event id, so a watcher downstream can time the row's journey.
 */
public final class OutboxWriters {
  private final DataSource dataSource;
  private final String table;
  private final int threads;
  private final int services;
  private final Map<UUID, Long> commitMicros = new ConcurrentHashMap<>();
  private final AtomicLong committed = new AtomicLong();
  private final Map<UUID, Long> commitLog = new ConcurrentHashMap<>();
  private volatile boolean keepLog;

  /**
   * @param table "outbox" or a table of the same shape (the polling baseline's)
   * @param threads writer threads, one connection each
   * @param services distinct service names the rows are spread over (Kafka keys)
   */
  public OutboxWriters(DataSource dataSource, String table, int threads, int services) {
    this.dataSource = dataSource;
    this.table = table;
    this.threads = threads;
    this.services = services;
  }

  /** Commit times in epoch microseconds by event id; the watcher removes what it has seen. */
  public Map<UUID, Long> commitMicros() {
    return commitMicros;
  }

  /**
   * Also keeps every commit time in {@link #commitLog()}, which no watcher consumes (for a suite
   * that times the same rows at two points).
   */
  public OutboxWriters keepLog() {
    keepLog = true;
    return this;
  }

  /** Commit times of every row since the log was last cleared (only with {@link #keepLog()}). */
  public Map<UUID, Long> commitLog() {
    return commitLog;
  }

  /**
   * Commits rows for {@code duration} at {@code ratePerSecond} in total (0 = as fast as possible),
   * blocking until done.
   *
   * @return commit times (epoch micros) of every committed row, unsorted
   */
  public long[] run(Duration duration, double ratePerSecond) {
    return run(duration, ratePerSecond, Long.MAX_VALUE);
  }

  /** Commits exactly {@code rows} rows as fast as the writers can (a backlog). */
  public long[] runCount(long rows) {
    return run(Duration.ofHours(1), 0, rows);
  }

  private long[] run(Duration duration, double ratePerSecond, long maxRows) {
    AtomicLong budget = new AtomicLong(maxRows);
    long end = System.nanoTime() + duration.toNanos();
    long[][] times = new long[threads][];
    List<RuntimeException> failures = new CopyOnWriteArrayList<>();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int index = t;
      workers.add(
          Thread.ofPlatform()
              .name("outbox-writer-" + t)
              .start(
                  () -> {
                    try {
                      times[index] = write(index, end, ratePerSecond / threads, budget);
                    } catch (RuntimeException e) {
                      failures.add(e);
                      times[index] = new long[0];
                    }
                  }));
    }
    for (Thread w : workers) {
      try {
        w.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for writers", e);
      }
    }
    if (!failures.isEmpty()) {
      throw failures.getFirst();
    }
    return Arrays.stream(times).flatMapToLong(Arrays::stream).toArray();
  }

  private long[] write(int index, long endNanos, double ratePerThread, AtomicLong budget) {
    long intervalNanos = ratePerThread > 0 ? (long) (1e9 / ratePerThread) : 0;
    long next =
        System.nanoTime() + (intervalNanos > 0 ? (long) (intervalNanos * index / threads) : 0);
    LongList out = new LongList();
    String sql =
        "insert into "
            + table
            + " ("
            + OutboxContract.COLUMN_ID
            + ", aggregatetype, aggregateid, type, payload, incident_id, schema_version)"
            + " values (?, ?, ?, ?, ?::jsonb, ?, ?)";
    try (Connection c = dataSource.getConnection();
        PreparedStatement insert = c.prepareStatement(sql)) {
      c.setAutoCommit(true);
      long n = 0;
      while (true) {
        if (intervalNanos > 0) {
          long wait = next - System.nanoTime();
          if (wait > 0) {
            LockSupport.parkNanos(wait);
          }
          next += intervalNanos;
        }
        if (System.nanoTime() >= endNanos || budget.getAndDecrement() <= 0) {
          break;
        }
        UUID eventId = UUID.randomUUID();
        String service = "svc-" + ((index + n * threads) % services);
        n++;
        AlertEvent event =
            AlertEvent.failed(
                eventId, UUID.randomUUID(), service, Instant.now(), 3, "connect timed out");
        insert.setObject(1, eventId);
        insert.setString(2, OutboxContract.AGGREGATE_TYPE);
        insert.setString(3, service);
        insert.setString(4, event.kind().name());
        insert.setString(5, AlertEventJson.write(event));
        insert.setObject(6, event.incidentId());
        insert.setInt(7, event.schemaVersion());
        insert.executeUpdate(); // auto-commit: one row, one transaction, one WAL flush
        long at = Clocks.nowMicros();
        commitMicros.put(eventId, at);
        if (keepLog) {
          commitLog.put(eventId, at);
        }
        committed.incrementAndGet();
        out.add(at);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("outbox writer " + index + " failed", e);
    }
    return out.toArray();
  }

  public long committed() {
    return committed.get();
  }

  /** Counts the timestamps in {@code [fromMicros, toMicros)}. */
  public static long countBetween(long[] micros, long fromMicros, long toMicros) {
    long n = 0;
    for (long m : micros) {
      if (m >= fromMicros && m < toMicros) {
        n++;
      }
    }
    return n;
  }

  /** A growable array of longs, to avoid boxing millions of timestamps. */
  static final class LongList {
    private long[] values = new long[1024];
    private int size;

    void add(long v) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = v;
    }

    long[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }
}
