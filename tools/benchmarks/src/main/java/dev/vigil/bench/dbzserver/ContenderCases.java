package dev.vigil.bench.dbzserver;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.BenchOptions;
import dev.vigil.bench.Suite;
import dev.vigil.bench.outbox.AckWatcher;
import dev.vigil.bench.outbox.CaughtUp;
import dev.vigil.bench.outbox.OutboxRun;
import dev.vigil.bench.outbox.OutboxWriters;
import dev.vigil.bench.relay.CatchupSuite;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every case of one contender, in order: start-up (a process only), idle footprint (a process
 * only), latency at 1,000/s and 2,000/s, live saturation with {@link #SATURATION_WRITERS} unpaced
 * writers against the commit limit measured just before, and the catch-up of a backlog. It leaves
 * the contender stopped.
 */
final class ContenderCases {
  /** Unpaced writers of the live-saturation case (and of the limit it is paired with). */
  static final int SATURATION_WRITERS = 8;

  private static final double[] RATES = {1000, 2000};
  private static final Duration CATCH_UP = Duration.ofSeconds(300);
  private static final Duration READY = Duration.ofSeconds(180);

  private final BenchContext ctx;
  private final Contender contender;
  private final OutboxWriters writers;
  private final OutboxWriters saturationWriters;
  private final OutboxWriters limitWriters;
  private final BenchOptions opts;
  private Contender.Running running;

  ContenderCases(
      BenchContext ctx,
      Contender contender,
      OutboxWriters writers,
      OutboxWriters saturationWriters,
      OutboxWriters limitWriters) {
    this.ctx = ctx;
    this.contender = contender;
    this.writers = writers;
    this.saturationWriters = saturationWriters;
    this.limitWriters = limitWriters;
    this.opts = ctx.options();
  }

  void run() {
    String name = contender.name();
    String bootstrap = ctx.infra().bootstrapServers();
    try (AckWatcher watcher =
        new AckWatcher(bootstrap, contender.topic(), writers.commitMicros())) {
      Map<String, Double> startup = start(watcher);
      if (running.pid() > 0) {
        ctx.addOneRun(
            DebeziumServerSuite.NAME,
            name + " start-up",
            startup,
            "process start -> health endpoint ready / first event published (one run)");
      }
      writers.run(Suite.pipelineWarmup(opts), 1000); // JIT warm-up, not measured
      CaughtUp.await(writers, watcher, CATCH_UP);
      if (running.pid() > 0) {
        ctx.addOneRun(
            DebeziumServerSuite.NAME,
            name + " idle",
            ProcessSampler.after(running.pid(), Duration.ZERO, opts.window()).await(),
            "no writes: the server process's memory, threads and CPU");
      }
      for (double rate : opts.quick() ? new double[] {1000} : RATES) {
        ctx.addMedian(
            DebeziumServerSuite.NAME,
            name + " @" + (int) rate + "/s",
            running.pid() > 0 ? "proc_* = the server process" : "relay in the benchmark JVM",
            rep -> atRate(watcher, rate));
      }
      try (AckWatcher saturationWatcher =
          new AckWatcher(bootstrap, contender.topic(), saturationWriters.commitMicros())) {
        ctx.addMedian(
            DebeziumServerSuite.NAME,
            name + " saturation",
            SATURATION_WRITERS + " unpaced writers; limit measured just before with no relay",
            rep -> saturation(saturationWatcher));
      }
      CaughtUp.await(writers, watcher, CATCH_UP);
      stop();
      ctx.addMedian(
          DebeziumServerSuite.NAME,
          name + " backlog",
          opts.backlog() + " rows committed while it was stopped, then a start",
          rep -> CatchupSuite.drain(ctx, writers, watcher, opts.backlog(), contender::start));
    } finally {
      stop();
    }
  }

  private void stop() {
    if (running != null) {
      running.close();
      running = null;
    }
  }

  /** Starts the contender and times it to ready and to the first fresh row published. */
  private Map<String, Double> start(AckWatcher watcher) {
    running = contender.start();
    Map<String, Double> m = new LinkedHashMap<>();
    double ready = running.awaitReady(READY);
    long readyAt = System.nanoTime();
    CaughtUp.await(writers, watcher, CATCH_UP); // commits a row and waits for it
    m.put("startup_ready_s", ready);
    m.put("startup_first_event_s", ready + (System.nanoTime() - readyAt) / 1e9);
    return m;
  }

  private Map<String, Double> atRate(AckWatcher watcher, double rate) {
    CaughtUp.await(writers, watcher, CATCH_UP);
    ProcessSampler sampler =
        running.pid() > 0
            ? ProcessSampler.after(running.pid(), opts.warmup(), opts.window())
            : null;
    Map<String, Double> m =
        new LinkedHashMap<>(
            OutboxRun.measure(
                writers,
                watcher,
                opts.warmup(),
                opts.window(),
                rate,
                Duration.ofSeconds(15),
                ctx.infra().postgresDataDir()));
    if (sampler != null) {
      m.putAll(sampler.await());
    }
    return m;
  }

  private Map<String, Double> saturation(AckWatcher watcher) {
    stop();
    Map<String, Double> limit = OutboxRun.commitLimit(limitWriters, ctx);
    running = contender.start();
    running.awaitReady(READY);
    CaughtUp.await(saturationWriters, watcher, CATCH_UP);
    if (running.pid() > 0) {
      // A restarted process starts cold; Vigil's relay in this JVM keeps its compiled code.
      saturationWriters.run(Suite.pipelineWarmup(opts), 1000);
      CaughtUp.await(saturationWriters, watcher, CATCH_UP);
    }
    return OutboxRun.pairedWithLimit(
        limit,
        OutboxRun.measure(
            saturationWriters,
            watcher,
            opts.warmup(),
            opts.window(),
            0,
            Duration.ofSeconds(30),
            ctx.infra().postgresDataDir()));
  }
}
