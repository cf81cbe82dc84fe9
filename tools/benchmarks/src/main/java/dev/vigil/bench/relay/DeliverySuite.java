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
import java.util.List;
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

  @Override
  public void run(BenchContext ctx) {
    for (String mode : MODES) {
      String database = "bench_" + mode.replace("-", "_");
      String topic = "bench.delivery." + mode;
      DataSource db = ctx.infra().monitorDatabase(database, WRITERS + 1);
      ctx.infra().createTopic(topic, PARTITIONS);
      OutboxWriters writers = new OutboxWriters(db, "outbox", WRITERS, SERVICES);
      try (AckWatcher watcher =
          new AckWatcher(
              ctx.infra().bootstrapServers(), topic, writers.commitMicros(), "read_committed")) {
        try (RelayService relay = VigilRelay.start(ctx.infra(), database, topic, mode)) {
          CaughtUp.await(writers, watcher, Duration.ofSeconds(120));
          writers.run(Suite.pipelineWarmup(ctx.options()), 1000);
          CaughtUp.await(writers, watcher, Duration.ofSeconds(120));
          ctx.addMedian(
              NAME,
              Cases.delivery(mode, Cases.DELIVERY_LIVE),
              "seen_p99_ms = commit -> visible to a read_committed consumer",
              rep -> {
                CaughtUp.await(writers, watcher, Duration.ofSeconds(120));
                return OutboxRun.measure(
                    writers,
                    watcher,
                    ctx.options().warmup(),
                    ctx.options().window(),
                    RATE,
                    Duration.ofSeconds(15),
                    ctx.infra().postgresDataDir());
              });
        }
        int backlog = ctx.options().backlog();
        ctx.addMedian(
            NAME,
            Cases.delivery(mode, Cases.DELIVERY_BACKLOG),
            backlog + " rows committed while the relay was stopped, read read_committed",
            rep ->
                CatchupSuite.drain(
                    ctx,
                    writers,
                    watcher,
                    backlog,
                    () -> VigilRelay.start(ctx.infra(), database, topic, mode)));
      }
    }
  }
}
