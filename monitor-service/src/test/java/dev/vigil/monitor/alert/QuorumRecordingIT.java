package dev.vigil.monitor.alert;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.Tables;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The quorum decision on the one recording path, against PostgreSQL: results of different locations
 * are ordered per location (their claim numbers interleave), a batch with several locations decides
 * as results recorded one by one would, and recorders racing from several locations (each with its
 * own pool, like monitor processes) write exactly one FAILED and one RECOVERED per incident under
 * the service's row lock.
 */
@ExtendWith(VigilInfraExtension.class)
class QuorumRecordingIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> LOCATIONS = List.of("eu", "us", "ap");

  @Test
  void claimNumbersAreOrderedPerLocationAndABatchDecidesTheQuorumOnce(TestDatabase db)
      throws Exception {
    MonitorSchema.migrate(db.dataSource());
    new TargetStore(db.dataSource()).add(target(1));
    Recorder recorder = new Recorder(db.dataSource(), new SimpleMeterRegistry());

    List<Recorder.Recorded> recorded =
        recorder.recordAll(
            List.of(
                pending(down("eu", 20L)),
                // Claimed before eu's, recorded after it: another location, so not stale.
                pending(down("us", 10L)),
                // Claimed before us's last one: stale for us.
                pending(down("us", 9L)),
                pending(up("ap", 30L))));

    assertThat(recorded).allMatch(Recorder.Recorded::committed);
    assertThat(recorded.stream().map(r -> r.outcome().accepted()))
        .containsExactly(true, true, false, true);
    assertThat(recorded.get(1).outcome().event().kind().name()).isEqualTo("FAILED");
    List<JsonNode> events = events(db);
    assertThat(events).hasSize(1);
    assertThat(events.getFirst().get("locations").toString())
        .as("ap had not reported yet when it opened: no verdict")
        .isEqualTo("{\"eu\":\"HTTP 503 eu\",\"us\":\"HTTP 503 us\"}");
    assertThat(Tables.count(db.dataSource(), "select count(*) from location_state where failing"))
        .isEqualTo(2);
  }

  @Test
  void recordersRacingFromEveryLocationWriteOneFailedAndOneRecovered(TestDatabase db)
      throws Exception {
    MonitorSchema.migrate(db.dataSource());
    new TargetStore(db.dataSource()).add(target(2));
    try (HikariDataSource a = pool(db);
        HikariDataSource b = pool(db);
        HikariDataSource c = pool(db);
        ExecutorService threads = Executors.newFixedThreadPool(LOCATIONS.size())) {
      List<HikariDataSource> pools = List.of(a, b, c);
      for (ProbeStatus status : List.of(ProbeStatus.DOWN, ProbeStatus.UP)) {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < LOCATIONS.size(); i++) {
          String location = LOCATIONS.get(i);
          Recorder recorder = new Recorder(pools.get(i), new SimpleMeterRegistry());
          futures.add(
              threads.submit(
                  () -> {
                    start.await();
                    for (int n = 0; n < 10; n++) {
                      recorder.record(
                          status == ProbeStatus.DOWN ? downPushed(location) : upPushed(location));
                    }
                    return null;
                  }));
        }
        start.countDown();
        for (Future<?> f : futures) {
          f.get();
        }
      }
    }
    List<JsonNode> events = events(db);
    assertThat(events.stream().map(e -> e.get("kind").asText()))
        .containsExactly("FAILED", "RECOVERED");
    assertThat(events.get(1).get("incidentId")).isEqualTo(events.get(0).get("incidentId"));
    assertThat(events.get(0).get("locations").size()).isGreaterThanOrEqualTo(2);
    assertThat(Tables.count(db.dataSource(), "select count(*) from check_history")).isEqualTo(60);
  }

  @Test
  void aFailedDeferredByASilenceCarriesTheLocationsWhenItIsAnnounced(TestDatabase db)
      throws Exception {
    MonitorSchema.migrate(db.dataSource());
    new TargetStore(db.dataSource()).add(target(1));
    Recorder recorder = new Recorder(db.dataSource(), new SimpleMeterRegistry());
    dev.vigil.monitor.quiet.Silences silences =
        new dev.vigil.monitor.quiet.Silences(db.dataSource());
    dev.vigil.monitor.quiet.Silence silence =
        silences.add("shop", null, "ops", "deploy", java.time.Instant.now().plusSeconds(600));
    recorder.record(downPushed("eu"));
    recorder.record(downPushed("us"));
    recorder.record(upPushed("ap"));
    assertThat(events(db)).as("quiet: no FAILED yet").isEmpty();

    silences.delete(silence.id());
    List<dev.vigil.contract.AlertEvent> written =
        new Announcer(
                db.dataSource(), java.time.Duration.ofSeconds(1), 10, new SimpleMeterRegistry())
            .runOnce();

    assertThat(written).hasSize(1);
    assertThat(written.getFirst().locations())
        .containsEntry("eu", "HTTP 503 eu")
        .containsEntry("us", "HTTP 503 us")
        .containsEntry("ap", "up");
    assertThat(events(db).getFirst().get("locations").size()).isEqualTo(3);
  }

  private static TargetSpec target(int failureThreshold) {
    return TargetSpec.builder("shop", TargetKind.HTTP)
        .url(URI.create("http://shop.internal/"))
        .thresholds(failureThreshold, 1)
        .locations(LOCATIONS, 2)
        .build();
  }

  private static Recorder.Pending pending(ProbeResult result) {
    return new Recorder.Pending(result, (connection, outcome) -> {});
  }

  private static ProbeResult down(String location, Long order) {
    return new ProbeResult(
        "shop",
        ProbeStatus.DOWN,
        null,
        1L,
        503,
        "HTTP 503 " + location,
        ResultSource.PUSH,
        order,
        location);
  }

  private static ProbeResult up(String location, Long order) {
    return new ProbeResult(
        "shop", ProbeStatus.UP, null, 1L, 200, null, ResultSource.PUSH, order, location);
  }

  private static ProbeResult downPushed(String location) {
    return down(location, null);
  }

  private static ProbeResult upPushed(String location) {
    return up(location, null);
  }

  private static List<JsonNode> events(TestDatabase db) throws Exception {
    List<JsonNode> events = new ArrayList<>();
    try (Connection connection = db.connect()) {
      for (String row :
          Tables.rows(
              connection, "select payload from outbox where aggregateid = 'shop' order by seq")) {
        events.add(JSON.readTree(row));
      }
    }
    return events;
  }

  private static HikariDataSource pool(TestDatabase db) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.jdbcUrl());
    config.setUsername(db.user());
    config.setPassword(db.password());
    config.setMaximumPoolSize(2);
    return new HikariDataSource(config);
  }
}
