package dev.vigil.relay;

import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes {@code total} outbox rows with several concurrent writers in the background, each row in
 * its own transaction (see {@link RelayFixture#insertNext}). Rows whose commit failed (e.g. while
 * the database was down) are retried, so exactly {@code total} commits happen.
 */
final class LoadWriter implements AutoCloseable {
  private final Map<String, String> serviceById = new ConcurrentHashMap<>();
  private final AtomicInteger written = new AtomicInteger();
  private final ExecutorService pool;
  private final List<Future<?>> writers = new ArrayList<>();

  LoadWriter(TestDatabase db, String servicePrefix, int services, int threads, int total) {
    this(db, servicePrefix, services, threads, total, 0);
  }

  /**
   * As above, but paced: row {@code i} is not written before {@code i / rowsPerSecond} seconds
   * after the start (0 = as fast as the writers can), so a test can act while rows are still being
   * written however fast or slow the machine is.
   */
  LoadWriter(
      TestDatabase db,
      String servicePrefix,
      int services,
      int threads,
      int total,
      int rowsPerSecond) {
    pool = Executors.newFixedThreadPool(threads);
    AtomicInteger next = new AtomicInteger();
    long startNanos = System.nanoTime();
    for (int t = 0; t < threads; t++) {
      writers.add(
          pool.submit(
              () -> {
                Connection c = null;
                int i;
                while ((i = next.getAndIncrement()) < total) {
                  if (rowsPerSecond > 0) {
                    long due = startNanos + i * 1_000_000_000L / rowsPerSecond;
                    java.util.concurrent.locks.LockSupport.parkNanos(due - System.nanoTime());
                  }
                  String service = servicePrefix + (i % services);
                  while (true) {
                    try {
                      if (c == null) {
                        c = db.connect();
                      }
                      AlertEvent event = RelayFixture.insertNext(c, service);
                      serviceById.put(event.eventId().toString(), service);
                      written.incrementAndGet();
                      break;
                    } catch (java.sql.SQLException e) {
                      c = null; // reconnect and retry this row
                      java.util.concurrent.locks.LockSupport.parkNanos(200_000_000L);
                    }
                  }
                }
                if (c != null) {
                  c.close();
                }
                return null;
              }));
    }
  }

  int written() {
    return written.get();
  }

  /** Waits for every writer; rethrows a writer's failure. */
  Map<String, String> awaitDone() throws Exception {
    for (Future<?> writer : writers) {
      writer.get();
    }
    return serviceById;
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
