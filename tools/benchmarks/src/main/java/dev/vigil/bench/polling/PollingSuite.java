package dev.vigil.bench.polling;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Result;
import dev.vigil.bench.Suite;
import dev.vigil.bench.outbox.AckWatcher;
import dev.vigil.bench.outbox.OutboxRun;
import dev.vigil.bench.outbox.OutboxWriters;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Baseline (a): the polling relay with batch 1 and 50, polling every second and as fast as it can,
 * fed by the same writers as the Vigil relay. Every case starts from an empty table and a fresh
 * relay.
 */
public final class PollingSuite implements Suite {
  public static final String NAME = Cases.POLLING;
  public static final String TOPIC = "bench.polling";

  /** The rates of the live relay cases; only variants that can sustain them run them. */
  public static final double[] RATES = {500, 1000, 2000};

  @Override
  public void run(BenchContext ctx) throws Exception {
    ctx.infra().createDatabase("bench_polling");
    DataSource db = ctx.infra().pool("bench_polling", WRITERS + 2);
    PollingSchema.create(db);
    ctx.infra().createTopic(TOPIC, PARTITIONS);
    OutboxWriters writers = new OutboxWriters(db, PollingSchema.TABLE, WRITERS, SERVICES);
    OutboxWriters limitWriters =
        new OutboxWriters(
            ctx.infra().monitorDatabase("bench_limit", WRITERS), "outbox", WRITERS, SERVICES);
    var opts = ctx.options();
    try (Producer<String, String> producer = producer(ctx.infra().bootstrapServers());
        AckWatcher watcher =
            new AckWatcher(ctx.infra().bootstrapServers(), TOPIC, writers.commitMicros())) {
      // Same warm-up as the Vigil relay gets, through the fastest variant.
      new Case(
              db,
              producer,
              writers,
              watcher,
              50,
              Duration.ZERO,
              opts,
              ctx.infra().postgresDataDir())
          .warm(Suite.pipelineWarmup(opts));
      for (int batch : new int[] {1, 50}) {
        for (Duration delay : new Duration[] {Duration.ofSeconds(1), Duration.ZERO}) {
          String name = variant(batch, delay);
          Case c =
              new Case(
                  db,
                  producer,
                  writers,
                  watcher,
                  batch,
                  delay,
                  opts,
                  ctx.infra().postgresDataDir());
          // Polling every second moves exactly `batch` rows a second: one repetition shows it.
          int reps = delay.isZero() ? opts.repetitions() : 1;
          ctx.report()
              .add(
                  Result.median(
                      NAME,
                      name + " saturation",
                      reps,
                      "writers at full speed; latency over delivered rows only; limit measured"
                          + " just before",
                      rep -> {
                        Map<String, Double> limit = OutboxRun.commitLimit(limitWriters, ctx);
                        return OutboxRun.pairedWithLimit(
                            limit, c.measure(0, Duration.ofSeconds(2)));
                      }));
          if (batch > 1) {
            ctx.report()
                .add(
                    Result.median(
                        NAME,
                        name + " idle",
                        1,
                        "no writes: CPU the relay costs while the outbox is empty",
                        rep -> c.idle()));
          }
          for (double rate : ratesFor(batch, delay)) {
            ctx.report()
                .add(
                    Result.median(
                        NAME,
                        name + " @" + (int) rate + "/s",
                        delay.isZero() ? opts.repetitions() : 1,
                        rate < 100 ? "half of its capacity (" + batch + " rows per poll)" : "",
                        rep -> c.measure(rate, Duration.ofSeconds(5))));
          }
        }
      }
      ctx.report()
          .note(
              "polling relay with batch 1: the fixed rates are not run — it moves one row per"
                  + " claim/publish/mark cycle, far below 500/s (see its saturation rows)");
    }
  }

  /**
   * Fixed rates worth running for a variant: every live rate for batch 50 without delay, half its
   * capacity for batch 50 every second, none for batch 1 (it cannot reach them).
   */
  private static double[] ratesFor(int batch, Duration delay) {
    if (batch == 1) {
      return new double[0];
    }
    return delay.isZero() ? RATES : new double[] {batch / 2.0};
  }

  public static String variant(int batch, Duration delay) {
    return "batch "
        + batch
        + ", "
        + (delay.isZero() ? "no delay" : "every " + delay.toSeconds() + " s");
  }

  private record Case(
      DataSource db,
      Producer<String, String> producer,
      OutboxWriters writers,
      AckWatcher watcher,
      int batch,
      Duration delay,
      dev.vigil.bench.BenchOptions opts,
      java.nio.file.Path pgDataDir) {

    void warm(Duration duration) {
      try {
        PollingSchema.reset(db, 20_000);
      } catch (SQLException e) {
        throw new IllegalStateException("cannot empty the polling table", e);
      }
      try (PollingRelay relay = new PollingRelay(db, producer, TOPIC, batch, delay)) {
        writers.run(duration, 1000);
      }
    }

    Map<String, Double> idle() {
      try {
        PollingSchema.reset(db, 20_000);
      } catch (SQLException e) {
        throw new IllegalStateException("cannot empty the polling table", e);
      }
      try (PollingRelay relay = new PollingRelay(db, producer, TOPIC, batch, delay)) {
        return OutboxRun.idle(opts.window(), pgDataDir);
      }
    }

    Map<String, Double> measure(double rate, Duration drain) {
      try {
        PollingSchema.reset(db, 20_000);
      } catch (SQLException e) {
        throw new IllegalStateException("cannot empty the polling table", e);
      }
      try (PollingRelay relay = new PollingRelay(db, producer, TOPIC, batch, delay)) {
        return OutboxRun.measure(
            writers, watcher, opts.warmup(), opts.window(), rate, drain, pgDataDir);
      }
    }
  }

  static Producer<String, String> producer(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return new KafkaProducer<>(p);
  }
}
