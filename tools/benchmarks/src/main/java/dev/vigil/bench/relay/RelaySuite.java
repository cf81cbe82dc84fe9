package dev.vigil.bench.relay;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Result;
import dev.vigil.bench.Suite;
import dev.vigil.bench.outbox.AckWatcher;
import dev.vigil.bench.outbox.CaughtUp;
import dev.vigil.bench.outbox.OutboxRun;
import dev.vigil.bench.outbox.OutboxWriters;
import dev.vigil.bench.polling.PollingSuite;
import dev.vigil.relay.RelayService;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Vigil's relay, live: the same writers as the baselines commit outbox rows at saturation and at
 * fixed rates while the relay streams them; throughput is what reached Kafka in the window, latency
 * runs from commit to the broker's append.
 */
public final class RelaySuite implements Suite {
  public static final String NAME = Cases.RELAY;
  public static final String TOPIC = "bench.vigil";
  public static final String SATURATION = Cases.RELAY_SATURATION;

  @Override
  public void run(BenchContext ctx) {
    DataSource db = ctx.infra().monitorDatabase("bench_relay", WRITERS + 1);
    ctx.infra().createTopic(TOPIC, PARTITIONS);
    OutboxWriters writers = new OutboxWriters(db, "outbox", WRITERS, SERVICES);
    var opts = ctx.options();
    OutboxWriters limitWriters =
        new OutboxWriters(
            ctx.infra().monitorDatabase("bench_limit", WRITERS), "outbox", WRITERS, SERVICES);
    RelayService[] relay = {VigilRelay.start(ctx.infra(), "bench_relay", TOPIC)};
    try (AckWatcher watcher =
        new AckWatcher(ctx.infra().bootstrapServers(), TOPIC, writers.commitMicros())) {
      CaughtUp.await(writers, watcher, Duration.ofSeconds(120));
      writers.run(Suite.pipelineWarmup(opts), 1000);
      CaughtUp.await(writers, watcher, Duration.ofSeconds(120));
      ctx.addMedian(
          NAME,
          SATURATION,
          "writers at full speed while the relay streams; latency over delivered rows;"
              + " limit measured just before with the relay stopped",
          rep -> {
            relay[0].close();
            Map<String, Double> limit = OutboxRun.commitLimit(limitWriters, ctx);
            relay[0] = VigilRelay.start(ctx.infra(), "bench_relay", TOPIC);
            CaughtUp.await(writers, watcher, Duration.ofSeconds(120));
            return OutboxRun.pairedWithLimit(
                limit,
                OutboxRun.measure(
                    writers,
                    watcher,
                    opts.warmup(),
                    opts.window(),
                    0,
                    Duration.ofSeconds(30),
                    ctx.infra().postgresDataDir()));
          });
      for (double rate : PollingSuite.RATES) {
        ctx.addMedian(
            NAME,
            Cases.relayAt((int) rate),
            "default settings",
            rep -> atRate(ctx, writers, watcher, rate, Duration.ofSeconds(15)));
      }
      double limit = ctx.report().metric(Cases.LIMIT, Cases.LIMIT_CASE, "events_per_s");
      if (!Double.isNaN(limit)) {
        double rate = Math.floor(limit * 0.9);
        ctx.addMedian(
            NAME,
            Cases.RELAY_AT_90,
            "offered " + (int) rate + "/s = 0.9 x the commit limit measured in this run",
            rep -> atRate(ctx, writers, watcher, rate, Duration.ofSeconds(30)));
      }
      ctx.report()
          .add(
              Result.median(
                  NAME,
                  "vigil idle",
                  1,
                  "no writes: CPU the relay costs while the outbox is empty",
                  rep -> {
                    CaughtUp.await(writers, watcher, Duration.ofSeconds(120));
                    return OutboxRun.idle(opts.window(), ctx.infra().postgresDataDir());
                  }));
      if (watcher.createTimeRecords() > 0) {
        ctx.report()
            .note(
                "relay topic records carried CreateTime, not LogAppendTime: latency ends at the"
                    + " relay's send, not the broker's append");
      }
    } finally {
      relay[0].close();
    }
  }

  /** One window at a fixed offered rate, once the relay has caught up with the previous one. */
  private static Map<String, Double> atRate(
      BenchContext ctx, OutboxWriters writers, AckWatcher watcher, double rate, Duration drain) {
    CaughtUp.await(writers, watcher, Duration.ofSeconds(120));
    return OutboxRun.measure(
        writers,
        watcher,
        ctx.options().warmup(),
        ctx.options().window(),
        rate,
        drain,
        ctx.infra().postgresDataDir());
  }
}
