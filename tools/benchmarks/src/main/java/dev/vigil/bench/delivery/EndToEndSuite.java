package dev.vigil.bench.delivery;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Suite;
import dev.vigil.bench.footprint.ImageProcesses;
import dev.vigil.bench.outbox.AckWatcher;
import dev.vigil.bench.outbox.CaughtUp;
import dev.vigil.bench.outbox.Clocks;
import dev.vigil.bench.outbox.OutboxRun;
import dev.vigil.bench.outbox.OutboxWriters;
import dev.vigil.bench.relay.VigilRelay;
import dev.vigil.kit.lifecycle.Closer;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * End to end at 1,000 events/s: writers commit FAILED rows into the outbox (one per transaction,
 * 1,000 services), the relay streams them to Kafka, the notifier delivers them to a local receiver.
 * Latency: receiver arrival minus the moment the commit returned, same clock. Twice: with the relay
 * and the notifier in this JVM, then each as its own process with its image's JVM flags, as users
 * run them (the receiver stays here, so arrivals are stamped on the writers' clock).
 */
public final class EndToEndSuite implements Suite {
  public static final String NAME = Cases.E2E;
  public static final String CASE = Cases.E2E_CASE;
  private static final String TOPIC = "bench.e2e";
  private static final int[] RATES = {100, 1_000, 2_000};

  @Override
  public void run(BenchContext ctx) throws Exception {
    runPipeline(ctx, false);
    runPipeline(ctx, true);
  }

  /**
   * The three rates through one pipeline: the relay and the notifier in this JVM (the cases named
   * {@code FAILED @<rate>/s}), or each as its own process started the way its image runs it ({@code
   * processes FAILED @<rate>/s}). Each pipeline has its own outbox database, topic and notifier.
   */
  private static void runPipeline(BenchContext ctx, boolean processes) throws Exception {
    String name = processes ? "bench_e2e_p" : "bench_e2e";
    String topic = processes ? TOPIC + ".p" : TOPIC;
    DataSource db = ctx.infra().monitorDatabase(name, WRITERS + 1);
    ctx.infra().createTopic(topic, PARTITIONS);
    OutboxWriters writers = new OutboxWriters(db, "outbox", WRITERS, 1_000).keepLog();
    var opts = ctx.options();
    try (WebhookReceiver receiver = new WebhookReceiver();
        AckWatcher watcher =
            new AckWatcher(ctx.infra().bootstrapServers(), topic, writers.commitMicros());
        AutoCloseable pipeline =
            processes
                ? asProcesses(ctx, name, topic, receiver.url())
                : inThisJvm(ctx, name, topic, receiver.url())) {
      DataSource notifierDb = ctx.infra().pool(name + "_notifier", 1);
      awaitFlowing(writers, receiver);
      writers.run(Suite.pipelineWarmup(opts), 1000);
      for (int rate : RATES) {
        String label = rate == 1_000 ? CASE : "FAILED @" + rate + "/s";
        ctx.addMedian(
            NAME,
            processes ? Cases.E2E_PROCESSES + label : label,
            "outbox commit → relay → Kafka → notifier → receiver, default settings"
                + (processes
                    ? ", relay and notifier each its own process with the image's JVM flags"
                    : "")
                + "; hops: receipt = commit → receipt stored, send = receipt → receiver,"
                + " record = receiver → delivery recorded",
            rep ->
                measure(
                    writers, receiver, watcher, notifierDb, opts.warmup(), opts.window(), rate));
      }
    }
  }

  private static AutoCloseable inThisJvm(
      BenchContext ctx, String name, String topic, String webhookUrl) {
    Closer closer = new Closer("e2e pipeline");
    try {
      closer.add(VigilRelay.start(ctx.infra(), name, topic));
      closer.add(Notifier.start(ctx.infra(), name + "_notifier", topic, "bench-e2e", webhookUrl));
      return closer;
    } catch (RuntimeException e) {
      throw closer.closeAfter(e);
    }
  }

  private static AutoCloseable asProcesses(
      BenchContext ctx, String name, String topic, String webhookUrl) {
    ImageProcesses processes = ImageProcesses.open("e2e-logs");
    try {
      processes.startService("relay", "cdc-relay", VigilRelay.settings(ctx.infra(), name, topic));
      processes.startService(
          "notifier",
          "notifier-consumer",
          Notifier.settings(ctx.infra(), name + "_notifier", topic, "bench-e2e", webhookUrl));
      return processes;
    } catch (RuntimeException e) {
      processes.close();
      throw e;
    }
  }

  private static void awaitFlowing(OutboxWriters writers, WebhookReceiver receiver) {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    receiver.clear();
    while (receiver.distinct() == 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("no event reached the receiver within 120 s");
      }
      writers.runCount(1);
      OutboxRun.sleep(200);
    }
  }

  private static Map<String, Double> measure(
      OutboxWriters writers,
      WebhookReceiver receiver,
      AckWatcher watcher,
      DataSource notifierDb,
      Duration warmup,
      Duration window,
      double rate) {
    CaughtUp.await(writers, watcher, Duration.ofSeconds(120)); // the relay has drained
    awaitQuiet(writers, receiver); // and so has the notifier
    receiver.clear();
    watcher.reset();
    writers.commitMicros().clear();
    writers.commitLog().clear();
    long start = Clocks.nowMicros() + warmup.toNanos() / 1000;
    long end = start + window.toNanos() / 1000;
    writers.run(warmup.plus(window), rate);
    Map<UUID, Long> inWindow = new HashMap<>();
    writers
        .commitLog()
        .forEach(
            (id, at) -> {
              if (at >= start && at < end) {
                inWindow.put(id, at);
              }
            });
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline && !allArrived(inWindow, receiver.firstArrival())) {
      OutboxRun.sleep(50);
    }
    Histogram h = new Histogram(3_600_000_000L, 3);
    long missing = 0;
    for (var e : inWindow.entrySet()) {
      Long at = receiver.firstArrival().get(e.getKey());
      if (at == null) {
        missing++;
      } else {
        h.recordValue(Math.max(0, at - e.getValue()));
      }
    }
    double seconds = window.toNanos() / 1e9;
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("offered_per_s", rate);
    m.put("events_per_s", h.getTotalCount() / seconds);
    m.put("p50_ms", OutboxRun.ms(h, 50));
    m.put("p95_ms", OutboxRun.ms(h, 95));
    m.put("p99_ms", OutboxRun.ms(h, 99));
    m.put("max_ms", h.getTotalCount() == 0 ? Double.NaN : h.getMaxValue() / 1000.0);
    m.put("undelivered", (double) missing);
    Histogram kafka = watcher.takeArrivals().ackLatency(start, end);
    m.put("kafka_p50_ms", OutboxRun.ms(kafka, 50));
    m.put("kafka_p99_ms", OutboxRun.ms(kafka, 99));
    m.putAll(Hops.of(notifierDb, inWindow, receiver.firstArrival()).figures());
    return m;
  }

  /** Waits for a fresh row to reach the receiver and then for 1 s without new arrivals. */
  private static void awaitQuiet(OutboxWriters writers, WebhookReceiver receiver) {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    writers.commitLog().clear();
    writers.runCount(1);
    UUID fresh = writers.commitLog().keySet().iterator().next();
    long seen = -1;
    while (System.nanoTime() < deadline) {
      long now = receiver.requests();
      if (receiver.firstArrival().containsKey(fresh) && now == seen) {
        return;
      }
      seen = now;
      OutboxRun.sleep(1000);
    }
    throw new IllegalStateException("the pipeline did not drain within 120 s");
  }

  private static boolean allArrived(Map<UUID, Long> committed, Map<UUID, Long> arrived) {
    for (UUID id : committed.keySet()) {
      if (!arrived.containsKey(id)) {
        return false;
      }
    }
    return true;
  }
}
