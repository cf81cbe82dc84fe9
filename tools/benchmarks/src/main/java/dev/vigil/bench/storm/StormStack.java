package dev.vigil.bench.storm;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.outbox.OutboxRun;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.MonitorConfig;
import dev.vigil.monitor.MonitorService;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the storm suites set up alike: the targets, the monitor, and the waits between phases. */
final class StormStack {
  private static final Logger LOG = LoggerFactory.getLogger(StormStack.class);

  private StormStack() {}

  /** Stores {@code count} targets {@code storm-0…} on {@code server}, failing at 3, up at 1. */
  static void storeTargets(DataSource db, StormTargets server, int count, Duration interval) {
    List<TargetSpec> specs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      specs.add(
          TargetSpec.builder("storm-" + i, TargetKind.HTTP)
              .url(URI.create(server.url(i)))
              .interval(interval)
              .timeout(Duration.ofSeconds(2))
              .connectTimeout(Duration.ofSeconds(1))
              .thresholds(3, 1)
              .build());
    }
    new TargetStore(db).upsertAll(specs, TargetStore.Source.API);
  }

  /** A monitor on {@code database} with its defaults, as {@code instanceId}. */
  static MonitorService startMonitor(BenchContext ctx, String database, String instanceId) {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", ctx.infra().jdbcUrl(database));
    env.put("VIGIL_DB_USER", "postgres");
    env.put("VIGIL_HTTP_PORT", "0");
    env.put("VIGIL_MONITOR_API_TOKEN", "bench-token");
    env.put("VIGIL_INSTANCE_ID", instanceId);
    return MonitorService.start(new MonitorConfig(new Settings(env)));
  }

  /**
   * Waits for {@code done}, asking every {@code pollMs}; after {@code limit} the run goes on,
   * logged as incomplete.
   */
  static void awaitPhase(
      String suite, String what, Duration limit, long pollMs, BooleanSupplier done) {
    long started = System.nanoTime();
    long deadline = started + limit.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        LOG.warn("{} phase incomplete phase=\"{}\" limitS={}", suite, what, limit.toSeconds());
        return;
      }
      OutboxRun.sleep(pollMs);
    }
    LOG.info(
        "{} phase reached phase=\"{}\" tookMs={}",
        suite,
        what,
        (System.nanoTime() - started) / 1_000_000);
  }
}
