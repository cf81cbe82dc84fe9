package dev.vigil.relay;

import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes outbox rows with several concurrent writers in the background, each row in its own
 * transaction (see {@link RelayFixture#insertNext}). Rows whose commit failed (e.g. while the
 * database was down) are retried, so every row index below the limit is committed exactly once.
 *
 * <p>Either a fixed number of rows as fast as the writers can ({@link #LoadWriter(TestDatabase,
 * String, int, int, int)}), or open-ended and paced ({@link #openEnded}): rows keep coming until
 * the test calls {@link #stopAfterMoreRows}, so a fault injected by the test always lands while
 * rows are still being written, however fast or slow the machine or the relay is.
 */
final class LoadWriter implements AutoCloseable {
  private static final int OPEN_ENDED = Integer.MAX_VALUE;

  private final Map<String, String> serviceById = new ConcurrentHashMap<>();
  private final AtomicInteger written = new AtomicInteger();
  private final AtomicInteger next = new AtomicInteger();

  /** Rows with an index below the limit are written; lowered once by {@link #stopAfterMoreRows}. */
  private final AtomicInteger limit;

  private final ExecutorService pool;
  private final List<Future<?>> writers = new ArrayList<>();

  /** Writes exactly {@code total} rows, as fast as {@code threads} writers can. */
  LoadWriter(TestDatabase db, String servicePrefix, int services, int threads, int total) {
    this(db, servicePrefix, services, threads, total, 0);
  }

  /**
   * Writes rows until {@link #stopAfterMoreRows} is called: row {@code i} is not written before
   * {@code i / rowsPerSecond} seconds after the start.
   */
  static LoadWriter openEnded(
      TestDatabase db, String servicePrefix, int services, int threads, int rowsPerSecond) {
    if (rowsPerSecond <= 0) {
      throw new IllegalArgumentException("an open-ended writer must be paced");
    }
    return new LoadWriter(db, servicePrefix, services, threads, OPEN_ENDED, rowsPerSecond);
  }

  private LoadWriter(
      TestDatabase db,
      String servicePrefix,
      int services,
      int threads,
      int total,
      int rowsPerSecond) {
    limit = new AtomicInteger(total);
    pool = Executors.newFixedThreadPool(threads);
    long startNanos = System.nanoTime();
    for (int t = 0; t < threads; t++) {
      writers.add(
          pool.submit(
              () -> {
                Connection c = null;
                try {
                  int i;
                  while ((i = next.getAndIncrement()) < limit.get()) {
                    if (rowsPerSecond > 0) {
                      long due = startNanos + i * 1_000_000_000L / rowsPerSecond;
                      LockSupport.parkNanos(due - System.nanoTime());
                    }
                    String service = servicePrefix + (i % services);
                    while (true) {
                      if (Thread.currentThread().isInterrupted()) {
                        return null; // closed by the test
                      }
                      try {
                        if (c == null) {
                          c = db.connect();
                        }
                        AlertEvent event = RelayFixture.insertNext(c, service);
                        serviceById.put(event.eventId().toString(), service);
                        written.incrementAndGet();
                        break;
                      } catch (SQLException e) {
                        closeQuietly(c);
                        c = null; // reconnect and retry this row
                        LockSupport.parkNanos(200_000_000L);
                      }
                    }
                  }
                  return null;
                } finally {
                  closeQuietly(c);
                }
              }));
    }
  }

  /** Rows committed so far. */
  int written() {
    return written.get();
  }

  /**
   * Lets an open-ended writer finish once at least {@code moreRows} further rows are committed:
   * every row index below {@code written() + moreRows} is still written (a writer may finish the
   * row it already took on top), none after that.
   */
  void stopAfterMoreRows(int moreRows) {
    if (limit.get() != OPEN_ENDED) {
      throw new IllegalStateException("not an open-ended writer, or already stopping");
    }
    limit.set(written.get() + moreRows);
  }

  /** Waits for every writer; rethrows a writer's failure. */
  Map<String, String> awaitDone() throws Exception {
    if (limit.get() == OPEN_ENDED) {
      throw new IllegalStateException("an open-ended writer finishes only after stopAfterMoreRows");
    }
    for (Future<?> writer : writers) {
      writer.get();
    }
    return serviceById;
  }

  @Override
  public void close() {
    limit.set(0);
    pool.shutdownNow();
  }

  private static void closeQuietly(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        // the connection is gone either way
      }
    }
  }
}
