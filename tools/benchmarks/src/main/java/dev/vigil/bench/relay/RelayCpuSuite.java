package dev.vigil.bench.relay;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Suite;
import dev.vigil.bench.outbox.AckWatcher;
import dev.vigil.bench.outbox.CaughtUp;
import dev.vigil.bench.outbox.Clocks;
import dev.vigil.bench.outbox.OutboxRun;
import dev.vigil.bench.outbox.OutboxWriters;
import dev.vigil.relay.RelayService;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The relay's own CPU per 1,000 events, apart from the writers and the broker sharing the machine:
 * its JVM threads and the walsender serving its slot (see {@link RelayCpuMeter}), at fixed rates
 * and while it catches up with a backlog, in both delivery modes. With {@code
 * -Dbench.relaycpu.jfr=FILE} the exactly-once catch-up is also recorded with JFR into FILE.
 */
public final class RelayCpuSuite implements Suite {
  public static final String NAME = Cases.RELAY_CPU;
  private static final List<String> MODES = List.of("exactly-once", "at-least-once");
  private static final List<Integer> RATES = List.of(1000, 5000);
  private static final Duration DRAIN = Duration.ofSeconds(600);

  @Override
  public void run(BenchContext ctx) {
    for (String mode : MODES) {
      String database = "bench_cpu_" + mode.replace("-", "_");
      String topic = "bench.relay-cpu." + mode;
      String slot = VigilRelay.settings(ctx.infra(), database, topic).get("VIGIL_RELAY_SLOT");
      DataSource db = ctx.infra().monitorDatabase(database, WRITERS + 1);
      ctx.infra().createTopic(topic, PARTITIONS);
      OutboxWriters writers = new OutboxWriters(db, "outbox", WRITERS, SERVICES);
      try (AckWatcher watcher =
          new AckWatcher(ctx.infra().bootstrapServers(), topic, writers.commitMicros())) {
        RelayCpuMeter meter = RelayCpuMeter.before();
        try (RelayService relay = VigilRelay.start(ctx.infra(), database, topic, mode)) {
          CaughtUp.await(writers, watcher, Duration.ofSeconds(120));
          writers.run(Suite.pipelineWarmup(ctx.options()), 1000);
          CaughtUp.await(writers, watcher, Duration.ofSeconds(120));
          for (int rate : RATES) {
            ctx.addMedian(
                NAME,
                Cases.relayCpu(mode, "@" + rate + "/s"),
                "relay threads (ThreadMXBean) / walsender (/proc) CPU per 1,000 events",
                rep -> live(ctx, writers, watcher, meter, db, slot, rate, mode));
          }
        }
        int backlog = ctx.options().backlog();
        ctx.addMedian(
            NAME,
            Cases.relayCpu(mode, "catch-up"),
            backlog
                + " rows committed while the relay was stopped; CPU from the first row to the last",
            rep -> catchUp(ctx, writers, watcher, db, slot, database, topic, mode, backlog));
      }
    }
  }

  private static Map<String, Double> live(
      BenchContext ctx,
      OutboxWriters writers,
      AckWatcher watcher,
      RelayCpuMeter meter,
      DataSource db,
      String slot,
      int rate,
      String mode) {
    writers.run(ctx.options().warmup(), rate);
    CaughtUp.await(writers, watcher, Duration.ofSeconds(120));
    RelayCpuMeter.Sample start = meter.sample(db, slot);
    long started = System.nanoTime();
    long committed = writers.run(ctx.options().window(), rate).length;
    awaitArrived(watcher, committed, Duration.ofSeconds(60));
    RelayCpuMeter.Sample end = meter.sample(db, slot);
    double seconds = (System.nanoTime() - started) / 1e9;
    long arrived = watcher.takeArrivals().size();
    Map<String, Double> m = end.since(start, arrived, seconds, mode + " @" + rate + "/s");
    m.put("offered_per_s", (double) rate);
    return m;
  }

  private static Map<String, Double> catchUp(
      BenchContext ctx,
      OutboxWriters writers,
      AckWatcher watcher,
      DataSource db,
      String slot,
      String database,
      String topic,
      String mode,
      int backlog) {
    watcher.reset();
    writers.commitMicros().clear();
    writers.runCount(backlog);
    RelayCpuMeter meter = RelayCpuMeter.before();
    try (RelayService relay = VigilRelay.start(ctx.infra(), database, topic, mode);
        Profile profile = Profile.startIf(mode.equals("exactly-once"))) {
      // From the first row on: Debezium may open a replication connection before the one it
      // streams on, so the walsender (and the relay's start-up) is settled once rows flow.
      awaitArrived(watcher, 1, DRAIN);
      long from = Clocks.nowMicros();
      RelayCpuMeter.Sample start = meter.sample(db, slot);
      long started = System.nanoTime();
      awaitArrived(watcher, backlog, DRAIN);
      RelayCpuMeter.Sample end = meter.sample(db, slot);
      double seconds = (System.nanoTime() - started) / 1e9;
      long events = watcher.takeArrivals().appendedBetween(from, Long.MAX_VALUE);
      Map<String, Double> m = end.since(start, events, seconds, mode + " catch-up");
      m.put("events_per_s", events / seconds);
      CaughtUp.await(writers, watcher, Duration.ofSeconds(60));
      return m;
    }
  }

  private static void awaitArrived(AckWatcher watcher, long rows, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (watcher.arrivedCommittedBetween(0, Long.MAX_VALUE) < rows) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "only "
                + watcher.arrivedCommittedBetween(0, Long.MAX_VALUE)
                + " of "
                + rows
                + " rows arrived within "
                + timeout);
      }
      watcher.check();
      OutboxRun.sleep(10);
    }
  }

  /** A JFR recording of a catch-up, when {@code -Dbench.relaycpu.jfr=FILE} asks for one. */
  private record Profile(jdk.jfr.Recording recording, Path file) implements AutoCloseable {
    static Profile startIf(boolean wanted) {
      String file = System.getProperty("bench.relaycpu.jfr");
      if (!wanted || file == null || file.isBlank()) {
        return new Profile(null, null);
      }
      try {
        jdk.jfr.Recording recording =
            new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
        recording.start();
        return new Profile(recording, Path.of(file));
      } catch (java.io.IOException | java.text.ParseException e) {
        throw new IllegalStateException("cannot start the JFR recording for " + file, e);
      }
    }

    @Override
    public void close() {
      if (recording == null) {
        return;
      }
      try (recording) {
        recording.stop();
        recording.dump(file);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("cannot write the JFR recording " + file, e);
      }
    }
  }
}
