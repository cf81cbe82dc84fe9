package dev.vigil.monitor.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.MonitorConfig;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.MonitorService;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Opt-in capacity check ({@code -Dvigil.capacity=true}, size via {@code -Dvigil.capacity.targets}):
 * one instance, N targets at a 10 s interval against a local server; every target must keep its
 * interval for two rounds. Prints probes/s and recorder transaction time. Not part of the default
 * suite: it measures the machine as much as the code.
 */
@ExtendWith(VigilInfraExtension.class)
@EnabledIfSystemProperty(named = "vigil.capacity", matches = "true")
class MonitorCapacityIT {
  private static final Duration INTERVAL = Duration.ofSeconds(10);

  @Test
  void oneInstanceKeepsTheIntervalForManyTargets(TestDatabase db) throws Exception {
    int count = Integer.getInteger("vigil.capacity.targets", 2000);
    MonitorSchema.migrate(db.dataSource());
    try (ProbeTargetServer server = new ProbeTargetServer(0)) {
      List<TargetSpec> targets =
          IntStream.range(0, count)
              .mapToObj(
                  i ->
                      TargetSpec.builder("svc-" + i, TargetKind.HTTP)
                          .url(URI.create(server.url("svc-" + i)))
                          .interval(INTERVAL)
                          .timeout(Duration.ofSeconds(2))
                          .connectTimeout(Duration.ofSeconds(1))
                          .thresholds(3, 1)
                          .build())
              .toList();
      new TargetStore(db.dataSource()).upsertAll(targets, TargetStore.Source.API);
      Map<String, String> env =
          Map.of(
              "VIGIL_DB_URL", db.jdbcUrl(),
              "VIGIL_DB_USER", db.user(),
              "VIGIL_DB_PASSWORD", db.password(),
              "VIGIL_HTTP_PORT", "0",
              "VIGIL_MONITOR_API_TOKEN", "capacity-token",
              "VIGIL_DB_POOL_SIZE", "10",
              "VIGIL_MONITOR_CLAIM_BATCH", "500",
              "VIGIL_MONITOR_CLAIM_POLL_INTERVAL", "100ms");
      try (MonitorService monitor = MonitorService.start(new MonitorConfig(new Settings(env)))) {
        long warm = System.nanoTime();
        await().atMost(Duration.ofSeconds(60)).until(() -> probedSince(server, warm, count, 1));
        long from = System.nanoTime();
        int before = server.hits().size();
        await().atMost(Duration.ofSeconds(60)).until(() -> probedSince(server, from, count, 2));
        long elapsed = System.nanoTime() - from;
        int probes = server.hits().size() - before;

        Map<String, List<Long>> byTarget =
            server.hits().stream()
                .filter(h -> h.startNanos() >= from)
                .collect(
                    Collectors.groupingBy(
                        ProbeTargetServer.Hit::target,
                        Collectors.mapping(
                            ProbeTargetServer.Hit::startNanos, Collectors.toList())));
        long maxGap = 0;
        for (List<Long> starts : byTarget.values()) {
          List<Long> sorted = new ArrayList<>(starts);
          sorted.sort(null);
          for (int i = 1; i < sorted.size(); i++) {
            maxGap = Math.max(maxGap, sorted.get(i) - sorted.get(i - 1));
          }
        }
        String metrics = scrape(monitor.httpPort());
        System.out.printf(
            "capacity: targets=%d probes=%d in %dms = %.0f probes/s, maxGap=%dms, %s%n",
            count,
            probes,
            elapsed / 1_000_000,
            probes * 1e9 / elapsed,
            maxGap / 1_000_000,
            recorderStats(metrics));
        assertThat(Duration.ofNanos(maxGap)).isLessThanOrEqualTo(INTERVAL.plusSeconds(2));
        assertThat(server.overlaps()).isZero();
      }
    }
  }

  private static boolean probedSince(ProbeTargetServer server, long since, int count, int times) {
    Map<String, Long> counts =
        server.hits().stream()
            .filter(h -> h.startNanos() >= since)
            .collect(Collectors.groupingBy(ProbeTargetServer.Hit::target, Collectors.counting()));
    return counts.size() == count && counts.values().stream().allMatch(c -> c >= times);
  }

  private static String scrape(int port) throws Exception {
    try (HttpClient client = HttpClient.newHttpClient()) {
      return client
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    }
  }

  private static String recorderStats(String metrics) {
    double sum = value(metrics, "vigil_monitor_recorder_transaction_seconds_sum");
    double count = value(metrics, "vigil_monitor_recorder_transaction_seconds_count");
    double max = value(metrics, "vigil_monitor_recorder_transaction_seconds_max");
    return String.format(
        "recorder tx: count=%.0f mean=%.1fms max=%.1fms", count, sum / count * 1000, max * 1000);
  }

  private static double value(String metrics, String name) {
    return metrics
        .lines()
        .filter(line -> line.startsWith(name + " "))
        .mapToDouble(line -> Double.parseDouble(line.substring(name.length() + 1)))
        .findFirst()
        .orElse(Double.NaN);
  }
}
