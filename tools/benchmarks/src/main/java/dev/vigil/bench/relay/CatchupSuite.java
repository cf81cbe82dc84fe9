package dev.vigil.bench.relay;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Suite;
import dev.vigil.bench.outbox.AckWatcher;
import dev.vigil.bench.outbox.Arrivals;
import dev.vigil.bench.outbox.CaughtUp;
import dev.vigil.bench.outbox.Clocks;
import dev.vigil.bench.outbox.OutboxRun;
import dev.vigil.bench.outbox.OutboxWriters;
import dev.vigil.relay.RelayService;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * Catch-up: the relay is stopped, a backlog of committed rows (one row per transaction) piles up,
 * the relay restarts and drains it. Reported: the drain rate from the first to the last record
 * appended, and the rate including the engine's start.
 */
public final class CatchupSuite implements Suite {
  public static final String NAME = Cases.CATCHUP;
  public static final String CASE = Cases.CATCHUP_CASE;
  private static final String TOPIC = "bench.catchup";

  @Override
  public void run(BenchContext ctx) {
    DataSource db = ctx.infra().monitorDatabase("bench_catchup", WRITERS + 1);
    ctx.infra().createTopic(TOPIC, PARTITIONS);
    OutboxWriters writers = new OutboxWriters(db, "outbox", WRITERS, SERVICES);
    int backlog = ctx.options().backlog();
    try (AckWatcher watcher =
        new AckWatcher(ctx.infra().bootstrapServers(), TOPIC, writers.commitMicros())) {
      try (RelayService relay = VigilRelay.start(ctx.infra(), "bench_catchup", TOPIC)) {
        CaughtUp.await(writers, watcher, Duration.ofSeconds(120)); // slot and offsets exist
        writers.run(Suite.pipelineWarmup(ctx.options()), 1000);
        CaughtUp.await(writers, watcher, Duration.ofSeconds(120));
      }
      ctx.addMedian(
          NAME,
          CASE,
          backlog + " rows committed while the relay was stopped, then a restart",
          rep ->
              drain(
                  ctx,
                  writers,
                  watcher,
                  backlog,
                  () -> VigilRelay.start(ctx.infra(), "bench_catchup", TOPIC)));
    }
  }

  /**
   * Commits {@code backlog} rows while no relay runs, then starts one with {@code start} (Vigil's
   * relay, or another relay such as Debezium Server) and measures how fast it drains them into what
   * {@code watcher} reads.
   */
  public static Map<String, Double> drain(
      BenchContext ctx,
      OutboxWriters writers,
      AckWatcher watcher,
      int backlog,
      Supplier<? extends AutoCloseable> start) {
    watcher.reset();
    writers.commitMicros().clear();
    long wrote = System.nanoTime();
    writers.runCount(backlog);
    double writeSeconds = (System.nanoTime() - wrote) / 1e9;
    long restart = Clocks.nowMicros();
    Map<String, Double> m = new LinkedHashMap<>();
    try (AutoCloseable relay = start.get()) {
      long deadline = System.nanoTime() + Duration.ofSeconds(300).toNanos();
      while (watcher.arrivedCommittedBetween(0, Long.MAX_VALUE) < backlog
          && System.nanoTime() < deadline) {
        watcher.check();
        OutboxRun.sleep(20);
      }
      Arrivals arrivals = watcher.takeArrivals();
      long[] range = arrivals.appendRange();
      m.put("rows", (double) arrivals.size());
      if (range != null) {
        m.put("events_per_s", arrivals.size() / ((range[1] - range[0] + 1000) / 1e6));
        m.put("incl_start_per_s", arrivals.size() / ((range[1] - restart) / 1e6));
        m.put("start_to_first_s", (range[0] - restart) / 1e6);
      }
      m.put("backlog_write_per_s", backlog / writeSeconds);
      CaughtUp.await(writers, watcher, Duration.ofSeconds(60));
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("cannot stop the relay after the catch-up", e);
    }
    return m;
  }
}
