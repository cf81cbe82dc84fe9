package dev.vigil.bench.recorder;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.CpuWindow;
import dev.vigil.bench.Suite;
import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.alert.ProbeStatus;
import dev.vigil.monitor.alert.Recorder;
import dev.vigil.monitor.alert.ResultSource;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * Results recorded per second through the monitor's {@link Recorder} (lock the state row, update
 * counters, open/close incidents, upsert health, append history, maybe an outbox row — one
 * transaction) versus plain single-row commits on the same database.
 *
 * <p>Each service sees a repeating pattern of ten results, six UP, three DOWN (the third opens an
 * incident and writes FAILED), one UP (closes it, RECOVERED): two outbox rows per ten results. With
 * 10,000 services each thread owns its own services; with one service every thread records for it,
 * so the row lock serialises them and results that lose the race are rejected as stale.
 */
public final class RecorderSuite implements Suite {
  public static final String NAME = Cases.RECORDER;
  private static final int[] CONNECTIONS = {1, 8};
  private static final int[] SERVICE_COUNTS = {1, 10_000};

  /** Results per {@link Recorder#recordAll} call in the batched case (the monitor's default). */
  public static final int BATCH = Recorder.DEFAULT_MAX_BATCH;

  @Override
  public void run(BenchContext ctx) throws Exception {
    DataSource db = ctx.infra().monitorDatabase("bench_recorder", 8);
    List<TargetSpec> targets = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      targets.add(TargetSpec.push(name(i)));
    }
    new TargetStore(db).upsertAll(targets, TargetStore.Source.API);
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "create table plain_results (id bigint generated always as identity primary key,"
              + " service text not null, status text not null, started_at timestamptz not null)");
    }
    Recorder recorder = new Recorder(db, new SimpleMeterRegistry());
    var opts = ctx.options();
    Path pgData = ctx.infra().postgresDataDir();
    for (int connections : CONNECTIONS) {
      ctx.addMedian(
          NAME,
          Cases.plain(connections),
          "one row per transaction, no state machine",
          rep -> measure(connections, opts.warmup(), opts.window(), pgData, t -> plain(db, t)));
      for (int services : SERVICE_COUNTS) {
        ctx.addMedian(
            NAME,
            Cases.recorder(connections, services),
            services == 1 && connections > 1
                ? "all threads on one service: serialised by its row lock"
                : "",
            rep ->
                measure(
                    connections,
                    opts.warmup(),
                    opts.window(),
                    pgData,
                    t -> recording(recorder, t, connections, services)));
      }
      ctx.addMedian(
          NAME,
          Cases.recorderBatched(connections, 10_000, BATCH),
          "recordAll: one transaction per " + BATCH + " results, a savepoint per result",
          rep ->
              measure(
                  connections,
                  opts.warmup(),
                  opts.window(),
                  pgData,
                  t -> batches(recorder, t, connections, 10_000)));
    }
  }

  /** Like {@link #recording}, {@link #BATCH} results per {@link Recorder#recordAll} call. */
  private static Step batches(Recorder recorder, int thread, int threads, int services) {
    Supplier<ProbeResult> next = results(thread, threads, services);
    return new Step() {
      @Override
      public int next() {
        List<Recorder.Pending> pending = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
          pending.add(new Recorder.Pending(next.get(), (c, o) -> {}));
        }
        int accepted = 0;
        for (Recorder.Recorded r : recorder.recordAll(pending)) {
          if (!r.committed()) {
            throw r.failure();
          }
          accepted += r.outcome().accepted() ? 1 : 0;
        }
        return accepted;
      }

      @Override
      public int size() {
        return BATCH;
      }
    };
  }

  static String name(int i) {
    return "svc-" + i;
  }

  /** One thread's work: called in a loop; returns how many of its results were accepted. */
  @FunctionalInterface
  interface Step extends AutoCloseable {
    int next() throws Exception;

    /** Results one call records. */
    default int size() {
      return 1;
    }

    @Override
    default void close() throws Exception {}
  }

  @FunctionalInterface
  interface StepFactory {
    Step forThread(int thread) throws Exception;
  }

  private static Step plain(DataSource db, int thread) throws SQLException {
    Connection c = db.getConnection();
    PreparedStatement ps =
        c.prepareStatement(
            "insert into plain_results (service, status, started_at) values (?, ?, now())");
    AtomicLong n = new AtomicLong();
    return new Step() {
      @Override
      public int next() throws SQLException {
        ps.setString(1, name((int) (n.getAndIncrement() % 10_000)));
        ps.setString(2, "UP");
        ps.executeUpdate();
        return 1;
      }

      @Override
      public void close() throws SQLException {
        c.close(); // back to the pool for the next case
      }
    };
  }

  private static Step recording(Recorder recorder, int thread, int threads, int services) {
    Supplier<ProbeResult> next = results(thread, threads, services);
    return () -> recorder.record(next.get()).accepted() ? 1 : 0;
  }

  /** One thread's results: its own services in turn, each in the repeating pattern of ten. */
  private static Supplier<ProbeResult> results(int thread, int threads, int services) {
    long[] counts = new long[services];
    AtomicLong cursor = new AtomicLong(thread);
    return () -> {
      int service =
          services == 1 ? 0 : (int) (cursor.getAndAdd(threads) % services); // own services only
      long k = counts[service]++;
      int phase = (int) (k % 10);
      ProbeStatus status = phase >= 6 && phase <= 8 ? ProbeStatus.DOWN : ProbeStatus.UP;
      return new ProbeResult(
          name(service),
          status,
          Instant.now(),
          3L,
          status == ProbeStatus.UP ? 200 : 503,
          status == ProbeStatus.UP ? null : "HTTP 503",
          ResultSource.PUSH,
          null);
    };
  }

  private static Map<String, Double> measure(
      int threads, Duration warmup, Duration window, Path pgDataDir, StepFactory factory) {
    AtomicLong done = new AtomicLong();
    AtomicLong accepted = new AtomicLong();
    long start = System.nanoTime() + warmup.toNanos();
    long end = start + window.toNanos();
    AtomicLong lastEnd = new AtomicLong(end);
    CpuWindow cpu = CpuWindow.between(start, end, pgDataDir);
    List<Exception> failures = new CopyOnWriteArrayList<>();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      workers.add(
          Thread.ofPlatform()
              .name("recorder-bench-" + t)
              .start(
                  () -> {
                    try (Step step = factory.forThread(thread)) {
                      while (true) {
                        long now = System.nanoTime();
                        if (now >= end) {
                          break;
                        }
                        int ok = step.next();
                        // Counted when it began in the window; the window then lasts until the
                        // last counted step ended (a batch of 200 may end well after it closed).
                        if (now >= start) {
                          done.addAndGet(step.size());
                          accepted.addAndGet(ok);
                          lastEnd.accumulateAndGet(System.nanoTime(), Math::max);
                        }
                      }
                    } catch (Exception e) {
                      failures.add(e);
                    }
                  }));
    }
    for (Thread w : workers) {
      try {
        w.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException("recorder benchmark thread failed", failures.getFirst());
    }
    cpu.await();
    double seconds = (lastEnd.get() - start) / 1e9;
    double perSecond = done.get() / seconds;
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("events_per_s", perSecond);
    m.put("accepted_per_s", accepted.get() / seconds);
    // Load-insensitive cost: CPU per result in the window (the JVM's includes the in-JVM broker,
    // idle here; PostgreSQL's is every backend of the embedded server).
    m.put("jvm_cpu_us_per_result", cpu.jvmCores() * 1e6 / perSecond);
    m.put("pg_cpu_us_per_result", cpu.pgCores() * 1e6 / perSecond);
    return m;
  }
}
