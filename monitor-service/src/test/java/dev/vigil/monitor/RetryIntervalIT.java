package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import java.net.InetSocketAddress;
import java.net.URI;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * retryInterval: while failures count towards an incident (none open), and while successes count
 * towards closing an open one, the next probe is due one retryInterval after the last, not one
 * interval; otherwise one interval. Checked on the schedule the recording transaction leaves (the
 * next due time against the time the result was recorded, both the database's), for a target probed
 * from one place and for one probed from a location, whose own counters decide.
 */
@ExtendWith(VigilInfraExtension.class)
class RetryIntervalIT {
  // Interval 10 s, retry 1 s: a step under 5 s can only be the retry interval.
  private static final double SPLIT_SECONDS = 5;

  @ParameterizedTest(name = "located={0}")
  @ValueSource(booleans = {false, true})
  void countingFailuresOrRecoveriesAreProbedAtTheRetryInterval(boolean located, TestDatabase db)
      throws Exception {
    AtomicInteger status = new AtomicInteger(200);
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
    server.createContext(
        "/",
        exchange -> {
          exchange.sendResponseHeaders(status.get(), -1);
          exchange.close();
        });
    server.start();
    Map<String, String> env = TestMonitor.settings(db, null, true);
    env.put("VIGIL_MONITOR_LOCATION", "eu");
    env.put("VIGIL_MONITOR_CLAIM_POLL_INTERVAL", "50ms");
    try (MonitorService monitor = MonitorService.start(new MonitorConfig(new Settings(env)))) {
      TargetSpec.Builder target =
          TargetSpec.builder("retry", TargetKind.HTTP)
              .url(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/"))
              .interval(Duration.ofSeconds(10))
              .timeout(Duration.ofSeconds(2))
              .thresholds(3, 2)
              .retryInterval(Duration.ofSeconds(1));
      if (located) {
        target.locations(List.of("eu"), 1);
      }
      monitor.targets().add(target.build());
      DataSource data = monitor.dataSource();
      Schedule schedule = new Schedule(data, located);
      dueNow(data, located);
      await("first UP").atMost(Duration.ofSeconds(30)).until(() -> results(data, "UP") >= 1);
      assertThat(schedule.step()).as("healthy: one interval").isGreaterThan(SPLIT_SECONDS);

      status.set(503);
      dueNow(data, located);
      await("first DOWN").atMost(Duration.ofSeconds(30)).until(() -> results(data, "DOWN") >= 1);
      assertThat(events(data)).isZero();
      assertThat(schedule.step()).as("failures counting: retryInterval").isLessThan(SPLIT_SECONDS);
      await("FAILED after re-checks").atMost(Duration.ofSeconds(30)).until(() -> events(data) == 1);
      assertThat(schedule.step())
          .as("incident open, failing: one interval")
          .isGreaterThan(SPLIT_SECONDS);

      status.set(200);
      dueNow(data, located);
      await("first UP while open")
          .atMost(Duration.ofSeconds(30))
          .until(() -> results(data, "UP") >= 2);
      assertThat(events(data)).as("recovery threshold 2: still open").isEqualTo(1);
      assertThat(schedule.step()).as("recovery counting: retryInterval").isLessThan(SPLIT_SECONDS);
      await("RECOVERED after a re-check")
          .atMost(Duration.ofSeconds(30))
          .until(() -> events(data) == 2);
      assertThat(schedule.step()).as("recovered: one interval").isGreaterThan(SPLIT_SECONDS);
    } finally {
      server.stop(0);
    }
  }

  /** The gap between the next due time and the last recorded result, in seconds. */
  private record Schedule(DataSource data, boolean located) {
    double step() throws Exception {
      String sql =
          located
              ? "select extract(epoch from (s.next_due_at - l.recorded_at)) from location_schedule s"
                  + " join location_state l on l.service = s.target and l.location = s.location"
                  + " where s.target = 'retry'"
              : "select extract(epoch from (s.next_due_at - h.checked_at)) from probe_schedule s"
                  + " join health_status h on h.service = s.target where s.target = 'retry'";
      try (Connection connection = data.getConnection()) {
        return Double.parseDouble(Tables.rows(connection, sql).getFirst());
      }
    }
  }

  /** Makes the next probe due now, so the test need not wait one 10 s interval. */
  private static void dueNow(DataSource data, boolean located) throws Exception {
    try (Connection connection = data.getConnection();
        var statement = connection.createStatement()) {
      statement.executeUpdate(
          "update "
              + (located ? "location_schedule" : "probe_schedule")
              + " set next_due_at = now() where target = 'retry'");
    }
  }

  private static long results(DataSource data, String status) {
    return Tables.count(
        data,
        "select count(*) from check_history where service = 'retry' and status = '" + status + "'");
  }

  private static long events(DataSource data) {
    return Tables.count(data, "select count(*) from outbox where aggregateid = 'retry'");
  }
}
