package dev.vigil.monitor.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.Tables;
import dev.vigil.monitor.alert.Recorder;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VigilInfraExtension.class)
class ProbeSchedulerIT {
  private ProbeTargetServer server;
  private TestDatabase db;
  private Prober prober;

  @BeforeEach
  void setUp(TestDatabase db) {
    this.db = db;
    MonitorSchema.migrate(db.dataSource());
    server = new ProbeTargetServer(10);
    prober = new Prober("vigil-monitor/solo", Clock.systemUTC(), new SimpleMeterRegistry());
  }

  @AfterEach
  void tearDown() {
    prober.close();
    server.close();
  }

  @Test
  void expiredLeaseOfACrashedInstanceIsTakenOverAndNotBefore() throws Exception {
    Duration crashedLease = Duration.ofSeconds(2);
    new TargetStore(db.dataSource()).upsertAll(List.of(target("orphan")), TargetStore.Source.API);
    // Taken before the statement: its now(), and so the lease's end, is no earlier than this.
    long before = System.nanoTime();
    execute(
        "update probe_schedule set next_due_at = now() - interval '1 second',"
            + " lease_owner = 'crashed', lease_token = gen_random_uuid(),"
            + " lease_until = now() + interval '"
            + crashedLease.toMillis()
            + " milliseconds'");

    try (ProbeScheduler scheduler = scheduler("solo")) {
      scheduler.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> !server.hits().isEmpty());
      // Before close(), which waits for running probes only so long before interrupting them.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> Tables.count(db.dataSource(), "select count(*) from check_history") > 0);
    }
    assertThat(Duration.ofNanos(server.hits().get(0).startNanos() - before))
        .as("first probe after the crashed instance's lease expired")
        .isGreaterThan(crashedLease);
    assertThat(
            Tables.count(
                db.dataSource(),
                "select count(*) from probe_schedule where lease_owner is not null"))
        .as("leases handed back on close")
        .isZero();
  }

  @Test
  void nextDueTimeAdvancesByWholeIntervalsFromThePreviousDueTime() throws Exception {
    new TargetStore(db.dataSource()).upsertAll(List.of(target("steady")), TargetStore.Source.API);
    execute(
        "update probe_schedule set next_due_at = date_trunc('second', now()) - interval '3.3 seconds'");
    String initial = single("select next_due_at from probe_schedule");

    try (ProbeScheduler scheduler = scheduler("solo")) {
      scheduler.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> server.hits().size() >= 3);
      // Before close(), which waits for running probes only so long before interrupting them.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> Tables.count(db.dataSource(), "select count(*) from check_history") >= 3);
    }
    // Overdue by 3.3 s at start: the first release skips to the next slot on the 1 s grid rather
    // than re-basing on the completion time, and every later one stays on that grid.
    assertThat(
            single(
                "select (extract(epoch from (next_due_at - '"
                    + initial
                    + "'::timestamptz)) * 1000)::bigint % 1000 from probe_schedule"))
        .isEqualTo("0");
  }

  @Test
  void disabledAndPushTargetsAreNotProbed() throws Exception {
    TargetStore store = new TargetStore(db.dataSource());
    TargetSpec disabled = target("off").toBuilder().enabled(false).build();
    store.upsertAll(
        List.of(disabled, TargetSpec.push("pushed"), target("on")), TargetStore.Source.API);
    execute("update probe_schedule set next_due_at = now() - interval '1 second'");

    try (ProbeScheduler scheduler = scheduler("solo")) {
      scheduler.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> server.hits().size() >= 2);
    }
    assertThat(server.hits()).extracting(ProbeTargetServer.Hit::target).containsOnly("on");
  }

  @Test
  void scheduleLagCountsTcpAndDnsProbesNotOnlyHttp() throws Exception {
    TargetStore store = new TargetStore(db.dataSource());
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    store.upsertAll(
        List.of(
            dev.vigil.monitor.targets.TargetParser.parse(
                "test",
                "",
                json.readTree(
                    "{\"name\":\"late-tcp\",\"type\":\"tcp\",\"url\":\"tcp://127.0.0.1:9\"}"),
                null),
            dev.vigil.monitor.targets.TargetParser.parse(
                "test",
                "",
                json.readTree(
                    "{\"name\":\"late-dns\",\"type\":\"dns\",\"url\":\"dns://localhost\"}"),
                null)),
        TargetStore.Source.API);
    execute("update probe_schedule set next_due_at = now() + interval '1 hour'");
    execute(
        "update probe_schedule set next_due_at = now() - interval '120 seconds'"
            + " where target = 'late-tcp'");
    assertThat(new ScheduleLag(db.dataSource(), new SimpleMeterRegistry()).sample())
        .isBetween(120.0, 3000.0);
    execute("update probe_schedule set next_due_at = now() + interval '1 hour'");
    execute(
        "update probe_schedule set next_due_at = now() - interval '150 seconds'"
            + " where target = 'late-dns'");
    assertThat(new ScheduleLag(db.dataSource(), new SimpleMeterRegistry()).sample())
        .isBetween(150.0, 3000.0);
  }

  @Test
  void scheduleLagGaugeReportsTheMostOverdueUnclaimedProbeOnly() throws Exception {
    TargetStore store = new TargetStore(db.dataSource());
    store.upsertAll(
        List.of(
            target("late"),
            target("leased"),
            target("off").toBuilder().enabled(false).build(),
            TargetSpec.push("pushed")),
        TargetStore.Source.API);
    execute("update probe_schedule set next_due_at = now() - interval '1 hour'");
    execute(
        "update probe_schedule set next_due_at = now() - interval '90 seconds'"
            + " where target = 'late'");
    execute(
        "update probe_schedule set lease_owner = 'other', lease_token = gen_random_uuid(),"
            + " lease_until = now() + interval '1 hour' where target = 'leased'");
    SimpleMeterRegistry sampled = new SimpleMeterRegistry();

    // Disabled, push and leased targets are not waiting for a scheduler: only 'late' counts.
    assertThat(new ScheduleLag(db.dataSource(), sampled).sample()).isBetween(90.0, 3000.0);
    assertThat(scheduleLag(sampled)).isBetween(90.0, 3000.0);

    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (ProbeScheduler scheduler = scheduler("solo", registry)) {
      scheduler.start();
      // Sampled in the background: NaN until the first sample, then below 30 s once 'late' is
      // claimed and its next due time moved on.
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(() -> assertThat(scheduleLag(registry)).isLessThan(30.0));
    }
  }

  private static double scheduleLag(SimpleMeterRegistry registry) {
    return registry.get(ScheduleLag.METRIC).gauge().value();
  }

  private ProbeScheduler scheduler(String instance) {
    return scheduler(instance, new SimpleMeterRegistry());
  }

  private ProbeScheduler scheduler(String instance, SimpleMeterRegistry registry) {
    return new ProbeScheduler(
        db.dataSource(),
        new Recorder(db.dataSource(), new SimpleMeterRegistry()),
        prober,
        new SchedulerSettings(instance, Duration.ofSeconds(1), 50, Duration.ofMillis(50), 100),
        registry);
  }

  private TargetSpec target(String name) {
    return TargetSpec.builder(name, TargetKind.HTTP)
        .url(URI.create(server.url(name)))
        .interval(Duration.ofSeconds(1))
        .timeout(Duration.ofMillis(500))
        .connectTimeout(Duration.ofMillis(500))
        .thresholds(3, 1)
        .build();
  }

  private void execute(String sql) throws Exception {
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private String single(String sql) throws Exception {
    try (Connection connection = db.connect()) {
      return Tables.rows(connection, sql).get(0);
    }
  }
}
