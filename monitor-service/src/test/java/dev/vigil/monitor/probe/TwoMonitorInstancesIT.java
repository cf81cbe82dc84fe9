package dev.vigil.monitor.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.MonitorConfig;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.MonitorService;
import dev.vigil.monitor.Tables;
import dev.vigil.monitor.target.StatusCodes;
import dev.vigil.monitor.target.TargetKind;
import dev.vigil.monitor.target.TargetSpec;
import dev.vigil.monitor.target.TargetStore;
import java.io.File;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two monitor instances on one database probe 100 targets on a local HTTP server: instance A in
 * this JVM, instance B a separate OS process that is killed with SIGKILL half-way. Runs about 30-45
 * seconds on a quiet machine (not the full minute of the issue) to keep the module's suite short: A
 * alone until every target was probed, B joins, a warm-up of two intervals, ~6 s of steady state
 * with both, then ~12 s after the kill (stranded leases expire after 8 s). "Never twice at once" is
 * checked over the whole run; the interval is checked in the steady windows, after both JVMs are
 * past start-up.
 */
@ExtendWith(VigilInfraExtension.class)
class TwoMonitorInstancesIT {
  private static final int TARGETS = 100;
  private static final Duration INTERVAL = Duration.ofSeconds(2);
  // Generous against CPU starvation on a shared CI machine: a probe may take at most 1.5 s (connect
  // +
  // read timeout), so the lease leaves 6.5 s for scheduling stalls before another instance may
  // probe the same target. A claim lasts max(lease, 0.5 + 1 + 2 s margin) = 8 s.
  private static final Duration LEASE = Duration.ofSeconds(8);
  private static final Duration EFFECTIVE_LEASE = LEASE;
  private static final Duration SLACK = Duration.ofMillis(1500);

  @Test
  void everyTargetIsProbedOnScheduleNeverTwiceAtOnceAndSurvivesAKilledInstance(TestDatabase db)
      throws Exception {
    MonitorSchema.migrate(db.dataSource());
    try (ProbeTargetServer server = new ProbeTargetServer(300)) {
      List<TargetSpec> targets =
          IntStream.range(0, TARGETS).mapToObj(i -> target(server, "svc-" + i)).toList();
      new TargetStore(db.dataSource()).upsertAll(targets, TargetStore.Source.API);

      Process b = null;
      try (MonitorService a =
          MonitorService.start(MonitorConfig.from(new Settings(env(db, "a"))))) {
        long aFrom = System.nanoTime();
        await("instance A alone probes every target")
            .atMost(Duration.ofSeconds(40))
            .until(() -> everyTargetProbedSince(server, aFrom, 1));
        b = startInstanceB(db);
        await("instance B probes")
            .atMost(Duration.ofSeconds(60))
            .until(() -> server.hits().stream().anyMatch(h -> h.instance().equals("b")));
        long warmFrom = System.nanoTime();
        await("warm-up with both instances")
            .atMost(Duration.ofSeconds(40))
            .until(() -> everyTargetProbedSince(server, warmFrom, 2));
        // Steady state: both JVMs are past start-up (class loading, JIT, first connections).
        long bothFrom = System.nanoTime();
        await("every target probed 3 times by the pair")
            .atMost(Duration.ofSeconds(40))
            .until(() -> everyTargetProbedSince(server, bothFrom, 3));

        // SIGKILL (no shutdown hook) from inside one of B's probes, so B dies holding that lease
        // and whatever else it had claimed: the stranded leases below are certain, not luck.
        Process victim = b;
        server.onNextRequestFrom("b", victim::destroyForcibly);
        assertThat(b.waitFor(20, TimeUnit.SECONDS)).isTrue();
        long killedAt = System.nanoTime();
        List<String> stranded;
        try (Connection connection = db.connect()) {
          stranded =
              Tables.rows(connection, "select target from probe_schedule where lease_owner = 'b'");
        }
        assertThat(stranded).as("B died holding leases (probes in flight)").isNotEmpty();

        await("every target probed 3 times by the survivor")
            .atMost(Duration.ofSeconds(40))
            .until(() -> everyTargetProbedSince(server, killedAt, 3));
        long strandedTakenOver =
            server.hits().stream()
                .filter(h -> h.startNanos() >= killedAt && stranded.contains(h.target()))
                .map(ProbeTargetServer.Hit::target)
                .distinct()
                .count();
        assertThat(strandedTakenOver).isEqualTo(stranded.size());
        assertThat(
                Tables.count(
                    db.dataSource(), "select count(*) from probe_schedule where lease_owner = 'b'"))
            .isZero();

        List<ProbeTargetServer.Hit> hits = server.hits();
        assertThat(server.overlaps()).as("probes of one target in flight at once").isZero();

        Map<String, Long> perInstance =
            hits.stream()
                .filter(h -> h.startNanos() >= bothFrom && h.startNanos() < killedAt)
                .collect(
                    Collectors.groupingBy(ProbeTargetServer.Hit::instance, Collectors.counting()));
        assertThat(perInstance.keySet()).as("both instances share the work").contains("a", "b");

        Map<String, List<Long>> byTarget =
            hits.stream()
                .collect(
                    Collectors.groupingBy(
                        ProbeTargetServer.Hit::target,
                        Collectors.mapping(
                            ProbeTargetServer.Hit::startNanos, Collectors.toList())));
        long maxGapSteady = 0;
        long maxGapAcrossKill = 0;
        for (List<Long> starts : byTarget.values()) {
          List<Long> sorted = new ArrayList<>(starts);
          sorted.sort(null);
          for (int i = 1; i < sorted.size(); i++) {
            long gap = sorted.get(i) - sorted.get(i - 1);
            if (sorted.get(i - 1) >= bothFrom && sorted.get(i) < killedAt) {
              maxGapSteady = Math.max(maxGapSteady, gap);
            } else if (sorted.get(i - 1) < killedAt && sorted.get(i) >= killedAt) {
              maxGapAcrossKill = Math.max(maxGapAcrossKill, gap);
            } else if (sorted.get(i - 1) >= killedAt) {
              maxGapSteady = Math.max(maxGapSteady, gap);
            }
          }
        }
        System.out.printf(
            "two-instances: hits=%d perInstanceBeforeKill=%s strandedLeases=%d maxGapSteady=%dms"
                + " maxGapAcrossKill=%dms%n",
            hits.size(),
            perInstance,
            stranded.size(),
            maxGapSteady / 1_000_000,
            maxGapAcrossKill / 1_000_000);
        assertThat(Duration.ofNanos(maxGapSteady))
            .as("interval kept while instances are healthy")
            .isLessThanOrEqualTo(INTERVAL.plus(SLACK));
        assertThat(Duration.ofNanos(maxGapAcrossKill))
            .as("a killed instance's targets, stranded leases included, continue within the lease")
            .isLessThanOrEqualTo(EFFECTIVE_LEASE.plus(INTERVAL).plus(SLACK));
        assertThat(Tables.count(db.dataSource(), "select count(*) from outbox"))
            .as("all targets healthy: no alerts")
            .isZero();
        assertThat(
                Tables.count(db.dataSource(), "select count(distinct service) from check_history"))
            .isEqualTo(TARGETS);
      } finally {
        if (b != null) {
          b.destroyForcibly();
        }
      }
    }
  }

  private static boolean everyTargetProbedSince(ProbeTargetServer server, long since, int times) {
    Map<String, Long> counts =
        server.hits().stream()
            .filter(h -> h.startNanos() >= since)
            .collect(Collectors.groupingBy(ProbeTargetServer.Hit::target, Collectors.counting()));
    return counts.size() == TARGETS && counts.values().stream().allMatch(c -> c >= times);
  }

  private static Process startInstanceB(TestDatabase db) throws Exception {
    String java = ProcessHandle.current().info().command().orElseThrow();
    ProcessBuilder builder =
        new ProcessBuilder(
            java,
            "-Xmx256m",
            "-cp",
            System.getProperty("java.class.path"),
            "dev.vigil.monitor.MonitorMain");
    builder.environment().putAll(env(db, "b"));
    File log = Path.of("target", "two-instances-b.log").toFile();
    builder.redirectErrorStream(true).redirectOutput(log);
    return builder.start();
  }

  private static Map<String, String> env(TestDatabase db, String instance) {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", db.jdbcUrl());
    env.put("VIGIL_DB_USER", db.user());
    env.put("VIGIL_DB_PASSWORD", db.password());
    env.put("VIGIL_HTTP_PORT", "0");
    env.put("VIGIL_API_TOKEN", "two-instances-token");
    env.put("VIGIL_DB_POOL_SIZE", "8");
    env.put("VIGIL_INSTANCE_ID", instance);
    env.put("VIGIL_LEASE_DURATION", LEASE.toMillis() + "ms");
    env.put("VIGIL_CLAIM_POLL_INTERVAL", "100ms");
    env.put("VIGIL_CLAIM_BATCH", "20");
    return env;
  }

  private static TargetSpec target(ProbeTargetServer server, String name) {
    return new TargetSpec(
        name,
        TargetKind.HTTP,
        URI.create(server.url(name)),
        "GET",
        INTERVAL,
        Duration.ofSeconds(1),
        Duration.ofMillis(500),
        StatusCodes.SUCCESS,
        3,
        1,
        false,
        true);
  }
}
