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
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Which instance claims what: two instances in location eu and one in us on one database. A target
 * listing only eu is probed only by eu's instances, never twice at once (the lease rules hold per
 * location); one listing only us only by us's; one listing both by each location, each result
 * recorded under its location; one listing none by any instance, as before locations existed.
 */
@ExtendWith(VigilInfraExtension.class)
class LocationClaimsIT {

  @Test
  void eachLocationClaimsOnlyItsOwnPairsAndTargetsWithoutLocationsAreSharedByAll(TestDatabase db)
      throws Exception {
    MonitorSchema.migrate(db.dataSource());
    try (ProbeTargetServer server = new ProbeTargetServer(200)) {
      new TargetStore(db.dataSource())
          .upsertAll(
              List.of(
                  target(server, "only-eu", List.of("eu")),
                  target(server, "only-us", List.of("us")),
                  target(server, "both", List.of("eu", "us")),
                  target(server, "plain", List.of())),
              TargetStore.Source.API);
      try (MonitorService eu1 = start(db, "eu-1", "eu");
          MonitorService eu2 = start(db, "eu-2", "eu");
          MonitorService us1 = start(db, "us-1", "us")) {
        await("every target probed five times")
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    List.of("only-eu", "only-us", "both", "plain").stream()
                        .allMatch(t -> hits(server, t).size() >= 5));

        assertThat(instances(server, "only-eu")).isSubsetOf("eu-1", "eu-2");
        assertThat(instances(server, "only-us")).containsOnly("us-1");
        assertThat(instances(server, "both")).contains("us-1").containsAnyOf("eu-1", "eu-2");
        try (var connection = db.connect()) {
          assertThat(
                  Tables.rows(
                      connection,
                      "select distinct location from check_history where service = 'both'"
                          + " order by 1"))
              .containsExactly("eu", "us");
          assertThat(
                  Tables.rows(
                      connection,
                      "select distinct coalesce(location, '-') from check_history"
                          + " where service = 'plain'"))
              .containsExactly("-");
        }
        assertThat(
                Tables.count(
                    db.dataSource(), "select count(*) from check_history where status = 'DOWN'"))
            .isZero();
      }
      // Targets of one location only: a second probe in flight at once would be an overlap.
      assertThat(overlapsOf(server, "only-eu")).isZero();
    }
  }

  private static MonitorService start(TestDatabase db, String instance, String location) {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", db.jdbcUrl());
    env.put("VIGIL_DB_USER", db.user());
    env.put("VIGIL_DB_PASSWORD", db.password());
    env.put("VIGIL_HTTP_PORT", "0");
    env.put("VIGIL_MONITOR_API_TOKEN", "location-claims-token");
    env.put("VIGIL_DB_POOL_SIZE", "4");
    env.put("VIGIL_INSTANCE_ID", instance);
    env.put("VIGIL_MONITOR_LOCATION", location);
    env.put("VIGIL_MONITOR_CLAIM_POLL_INTERVAL", "50ms");
    return MonitorService.start(new MonitorConfig(new Settings(env)));
  }

  private static TargetSpec target(ProbeTargetServer server, String name, List<String> at) {
    return TargetSpec.builder(name, TargetKind.HTTP)
        .url(URI.create(server.url(name)))
        .interval(Duration.ofSeconds(1))
        .timeout(Duration.ofSeconds(1))
        .thresholds(100, 1)
        .locations(at, null)
        .build();
  }

  private static List<ProbeTargetServer.Hit> hits(ProbeTargetServer server, String target) {
    return server.hits().stream().filter(h -> h.target().equals(target)).toList();
  }

  private static Set<String> instances(ProbeTargetServer server, String target) {
    return hits(server, target).stream()
        .map(ProbeTargetServer.Hit::instance)
        .collect(Collectors.toSet());
  }

  /** Probes of {@code target} that started while another of its probes was being answered. */
  private static long overlapsOf(ProbeTargetServer server, String target) {
    List<Long> starts =
        hits(server, target).stream().map(ProbeTargetServer.Hit::startNanos).sorted().toList();
    long overlaps = 0;
    for (int i = 1; i < starts.size(); i++) {
      // The server holds each request 200 ms; probes are due 1 s apart.
      if (starts.get(i) - starts.get(i - 1) < 200_000_000L) {
        overlaps++;
      }
    }
    return overlaps;
  }
}
