package dev.vigil.bench.footprint;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Suite;
import dev.vigil.bench.outbox.OutboxWriters;
import dev.vigil.bench.storm.StormSuite;
import dev.vigil.bench.storm.StormTargets;
import dev.vigil.harness.FreePorts;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * Each Vigil service (monitor, relay, notifier) and the reference receiver as its own OS process,
 * default settings, started with the JVM flags of its image: start-up time to {@code /health}
 * ready, then RSS, heap after GC, CPU and threads idle and at 1,000 events/s (the monitor probing
 * 10,000 targets every 10 s; outbox rows committed at 1,000/s through relay → Kafka → notifier →
 * reference receiver).
 */
public final class FootprintSuite implements Suite {
  private static final String TOPIC = "bench.footprint";
  private static final String OUTBOX_DB = "bench_fp";
  private static final int TARGETS = 10_000;
  // Twice the other suites' writers: at 1,000 rows/s each may take 32 ms per commit (it took 26 ms
  // at load average 25 here, where 16 writers offered only 611 rows/s).
  private static final int PIPELINE_WRITERS = 2 * WRITERS;
  private static final String PROBES_SQL = "select count(*) from check_history";
  private static final String RECEIVED_SQL = "select count(*) from received_webhook";

  @Override
  public void run(BenchContext ctx) throws Exception {
    boolean quick = ctx.options().quick();
    Duration settle = Duration.ofSeconds(quick ? 3 : 15);
    Duration window = Duration.ofSeconds(quick ? 8 : 30);
    DataSource outbox = ctx.infra().monitorDatabase(OUTBOX_DB, PIPELINE_WRITERS + 1);
    ctx.infra().createTopic(TOPIC, PARTITIONS);
    for (String db : List.of("bench_fp_monitor", "bench_fp_notifier", "bench_fp_receiver")) {
      ctx.infra().createDatabase(db);
    }
    String secret = secret();
    List<ServiceProcess> services = new ArrayList<>();
    // the targets outlive the services: a monitor still probing a stopped server would alert
    try (StormTargets targets = new StormTargets();
        ImageProcesses processes = ImageProcesses.open("footprint-logs")) {
      Map<String, Double> startup = processes.startupMs();
      ctx.report()
          .note(
              "footprint: JVM flags "
                  + String.join(" ", processes.flags())
                  + ", java "
                  + Runtime.version()
                  + (ImageJvmFlags.extraEnvironment().isEmpty()
                      ? ""
                      : ", environment " + ImageJvmFlags.extraEnvironment()));
      int receiverPort = FreePorts.pick();
      services.add(
          processes.start(
              "receiver",
              "tools/reference-receiver",
              receiverPort,
              env(ctx, "bench_fp_receiver", Map.of("VIGIL_WEBHOOK_SECRETS", secret))));
      services.add(
          processes.start(
              "notifier",
              "notifier-consumer",
              FreePorts.pick(),
              env(ctx, "bench_fp_notifier", notifierEnv(ctx, secret, receiverPort))));
      services.add(
          processes.start(
              "relay", "cdc-relay", FreePorts.pick(), env(ctx, OUTBOX_DB, relayEnv(ctx))));
      services.add(
          processes.start(
              "monitor",
              "monitor-service",
              FreePorts.pick(),
              env(ctx, "bench_fp_monitor", Map.of("VIGIL_MONITOR_API_TOKEN", "bench-footprint"))));

      ServiceProcess.pause(settle.toMillis());
      var idle = FootprintWindow.measure(services, window, () -> {});
      for (ServiceProcess s : services) {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("startup_ms", startup.get(s.name()));
        if (startup.containsKey(s.name() + "-first")) {
          m.put("startup_first_ms", startup.get(s.name() + "-first"));
        }
        m.putAll(idle.get(s.name()));
        ctx.addOneRun(Cases.FOOTPRINT, Cases.footprint(s.name(), false), m, note("idle"));
      }

      // Two load phases, one after the other, so neither starves the other of the two cores:
      // first the pipeline at 1,000 rows/s while the monitor has no targets, then the monitor's
      // 10,000 targets while no rows are written. Each service's "at load" row is its own phase.
      DataSource receiverDb = ctx.infra().pool("bench_fp_receiver", 2);
      Map<String, Map<String, Double>> pipeline;
      double paced;
      try (PacedLoad load =
          PacedLoad.start(new OutboxWriters(outbox, "outbox", PIPELINE_WRITERS, 1_000))) {
        PacedLoad.awaitGrowth(receiverDb, RECEIVED_SQL, Duration.ofSeconds(300));
        ServiceProcess.pause(settle.toMillis());
        // The notifier starts cold (JIT, connections) and first works off what queued meanwhile:
        // the window starts once deliveries keep pace with the writers.
        paced =
            PacedLoad.awaitPace(
                receiverDb, RECEIVED_SQL, PacedLoad.RATE, 0.9, Duration.ofSeconds(120));
        pipeline = measureAtLoad(services, window, load::committed, receiverDb, RECEIVED_SQL);
      }
      for (Map<String, Double> m : pipeline.values()) {
        m.put("paced_after_s", paced);
      }
      String pipelineNote =
          "outbox rows at 1,000/s → relay → Kafka → notifier → receiver, monitor idle;"
              + " offered/s = rows committed, events/s = webhooks stored by the receiver;"
              + " window from the moment deliveries kept pace (paced_after_s; -1: never within"
              + " 120 s)";
      for (ServiceProcess s : services) {
        if (!s.name().equals("monitor")) {
          ctx.addOneRun(
              Cases.FOOTPRINT,
              Cases.footprint(s.name(), true),
              pipeline.get(s.name()),
              note(pipelineNote));
        }
      }

      DataSource monitorDb = ctx.infra().pool("bench_fp_monitor", 2);
      storeTargets(monitorDb, targets);
      PacedLoad.awaitGrowth(monitorDb, PROBES_SQL, Duration.ofSeconds(300));
      // the monitor's first probes are spread over one interval: settle at least that long
      ServiceProcess.pause(Math.max(settle.toMillis(), 10_000));
      var probing =
          measureAtLoad(services, window, () -> targets.requests(), monitorDb, PROBES_SQL);
      ctx.addOneRun(
          Cases.FOOTPRINT,
          Cases.footprint("monitor", true),
          probing.get("monitor"),
          note(
              "10,000 targets every 10 s, pipeline idle; offered/s = probe requests answered by"
                  + " the targets, events/s = probe results recorded"));
    }
  }

  /**
   * One window of {@link FootprintWindow} plus, per service, {@code offered_per_s} (growth of
   * {@code offered} over the window) and {@code events_per_s} (growth of {@code countSql}).
   */
  private static Map<String, Map<String, Double>> measureAtLoad(
      List<ServiceProcess> services,
      Duration window,
      LongSupplier offered,
      DataSource db,
      String countSql) {
    long offered0 = offered.getAsLong();
    long events0 = StormSuite.count(db, countSql);
    long t0 = System.nanoTime();
    double[] rates = new double[2];
    var out =
        FootprintWindow.measure(
            services,
            window,
            () -> {
              double seconds = (System.nanoTime() - t0) / 1e9;
              rates[0] = (offered.getAsLong() - offered0) / seconds;
              rates[1] = (StormSuite.count(db, countSql) - events0) / seconds;
            });
    Map<String, Map<String, Double>> withRates = new LinkedHashMap<>();
    for (var e : out.entrySet()) {
      Map<String, Double> m = new LinkedHashMap<>();
      m.put("events_per_s", rates[1]);
      m.put("offered_per_s", rates[0]);
      m.putAll(e.getValue());
      withRates.put(e.getKey(), m);
    }
    return withRates;
  }

  private static String note(String what) {
    return "own process, default settings, image JVM flags; " + what;
  }

  private static Map<String, String> env(BenchContext ctx, String db, Map<String, String> own) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("VIGIL_DB_URL", ctx.infra().jdbcUrl(db));
    env.put("VIGIL_DB_USER", "postgres");
    env.putAll(own);
    return env;
  }

  private static Map<String, String> notifierEnv(
      BenchContext ctx, String secret, int receiverPort) {
    return Map.of(
        "VIGIL_KAFKA_BOOTSTRAP_SERVERS",
        ctx.infra().bootstrapServers(),
        "VIGIL_TOPIC",
        TOPIC,
        "VIGIL_NOTIFIER_GROUP_ID",
        "bench-footprint",
        "VIGIL_WEBHOOK_URL",
        "http://127.0.0.1:" + receiverPort + "/webhook",
        "VIGIL_WEBHOOK_ALLOW_HTTP",
        "true",
        "VIGIL_WEBHOOK_SECRETS",
        secret);
  }

  private static Map<String, String> relayEnv(BenchContext ctx) {
    return Map.of(
        "VIGIL_KAFKA_BOOTSTRAP_SERVERS",
        ctx.infra().bootstrapServers(),
        "VIGIL_TOPIC",
        TOPIC,
        "VIGIL_RELAY_SLOT",
        "bench_fp",
        "VIGIL_INSTANCE_ID",
        "bench-footprint-relay");
  }

  private static void storeTargets(DataSource db, StormTargets server) {
    List<TargetSpec> specs = new ArrayList<>();
    for (int i = 0; i < TARGETS; i++) {
      specs.add(
          TargetSpec.builder("fp-" + i, TargetKind.HTTP)
              .url(URI.create(server.url(i)))
              .interval(Duration.ofSeconds(10))
              .timeout(Duration.ofSeconds(2))
              .build());
    }
    new TargetStore(db).upsertAll(specs, TargetStore.Source.API);
  }

  private static String secret() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return "whsec_" + Base64.getEncoder().encodeToString(key);
  }
}
