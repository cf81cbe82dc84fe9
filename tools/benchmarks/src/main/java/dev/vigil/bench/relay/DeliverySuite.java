package dev.vigil.bench.relay;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Suite;
import dev.vigil.bench.outbox.AckWatcher;
import dev.vigil.bench.outbox.CaughtUp;
import dev.vigil.bench.outbox.OutboxRun;
import dev.vigil.bench.outbox.OutboxWriters;
import dev.vigil.relay.RelayService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The cost of exactly-once delivery: the relay with {@code VIGIL_RELAY_DELIVERY=at-least-once} and
 * with {@code exactly-once}, side by side, read by a {@code read_committed} consumer (what the
 * notifier and the topic contract ask of consumers). Per mode: latency at 1,000 rows/s from the
 * outbox commit to the record being visible to that consumer ({@code seen_p99_ms}; for a
 * transactional record that is its Kafka commit), and the drain rate of a backlog.
 */
public final class DeliverySuite implements Suite {
  public static final String NAME = Cases.DELIVERY;
  private static final List<String> MODES = List.of(Cases.AT_LEAST_ONCE, Cases.EXACTLY_ONCE);
  private static final double RATE = 1000; // Cases.DELIVERY_LIVE names it

  /**
   * One mode's database, topic, writers and reader, side by side with the other modes', and its
   * repetitions' results so far.
   */
  private record Lane(
      String mode,
      String database,
      String topic,
      OutboxWriters writers,
      AckWatcher watcher,
      List<Map<String, Double>> live,
      List<Map<String, Double>> drained) {}

  /**
   * Repetitions are interleaved: each one runs every mode in turn, starting one mode later than the
   * repetition before, with a fresh relay each time. The machine drifts during a run (the benchmark
   * JVM's JIT, the broker's and PostgreSQL's caches), and with one mode after the other that drift
   * was charged to whichever mode came first: the same exactly-once relay measured p99 89 ms as the
   * third mode of a run and 328 ms as the first of the next. One unmeasured round first.
   */
  @Override
  public void run(BenchContext ctx) {
    List<Lane> lanes = new ArrayList<>();
    try {
      for (String mode : MODES) {
        String database = "bench_" + mode.replace("-", "_");
        String topic = "bench.delivery." + mode;
        DataSource db = ctx.infra().monitorDatabase(database, WRITERS + 1);
        ctx.infra().createTopic(topic, PARTITIONS);
        OutboxWriters writers = new OutboxWriters(db, "outbox", WRITERS, SERVICES);
        lanes.add(
            new Lane(
                mode,
                database,
                topic,
                writers,
                new AckWatcher(
                    ctx.infra().bootstrapServers(),
                    topic,
                    writers.commitMicros(),
                    "read_committed"),
                new ArrayList<>(),
                new ArrayList<>()));
      }
      for (Lane lane : lanes) {
        live(ctx, lane); // warm-up round, not measured
      }
      int reps = ctx.options().repetitions();
      for (int rep = 0; rep < reps; rep++) {
        for (int i = 0; i < lanes.size(); i++) {
          Lane lane = lanes.get((rep + i) % lanes.size());
          lane.live().add(live(ctx, lane));
          lane.drained().add(drain(ctx, lane));
        }
      }
      for (Lane lane : lanes) {
        ctx.addRuns(
            NAME,
            Cases.delivery(lane.mode(), Cases.DELIVERY_LIVE),
            "seen_p99_ms = commit -> visible to a read_committed consumer",
            lane.live());
        ctx.addRuns(
            NAME,
            Cases.delivery(lane.mode(), Cases.DELIVERY_BACKLOG),
            ctx.options().backlog()
                + " rows committed while the relay was stopped, read read_committed",
            lane.drained());
      }
    } finally {
      lanes.forEach(lane -> lane.watcher().close());
    }
  }

  /** Starts the mode's relay, warms it up, measures 1,000 rows/s for the window, stops it. */
  private static Map<String, Double> live(BenchContext ctx, Lane lane) {
    try (RelayService relay = start(ctx, lane)) {
      CaughtUp.await(lane.writers(), lane.watcher(), Duration.ofSeconds(120));
      lane.writers().run(Suite.pipelineWarmup(ctx.options()), 1000);
      CaughtUp.await(lane.writers(), lane.watcher(), Duration.ofSeconds(120));
      return OutboxRun.measure(
          lane.writers(),
          lane.watcher(),
          ctx.options().warmup(),
          ctx.options().window(),
          RATE,
          Duration.ofSeconds(15),
          ctx.infra().postgresDataDir());
    }
  }

  private static Map<String, Double> drain(BenchContext ctx, Lane lane) {
    return CatchupSuite.drain(
        ctx, lane.writers(), lane.watcher(), ctx.options().backlog(), () -> start(ctx, lane));
  }

  private static RelayService start(BenchContext ctx, Lane lane) {
    return VigilRelay.start(ctx.infra(), lane.database(), lane.topic(), lane.mode());
  }
}
