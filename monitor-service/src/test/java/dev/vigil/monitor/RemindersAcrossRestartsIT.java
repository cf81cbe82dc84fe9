package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Reminders are written by whichever monitor instance runs the announcer, one period apart by the
 * database's clock: a monitor stopped and started again between reminders, and two monitors running
 * at once, neither repeat a reminder nor skip one.
 */
@ExtendWith(VigilInfraExtension.class)
class RemindersAcrossRestartsIT {
  private static final String SERVICE = "reports";
  private static final long PERIOD_MS = 2000;

  @Test
  void restartAndASecondInstanceNeitherRepeatNorSkipAReminder(TestDatabase db) throws Exception {
    MonitorSchema.migrate(db.dataSource());
    new TargetStore(db.dataSource()).add(TargetSpec.push(SERVICE));
    // The file and the API accept 1m at least; the database allows 1 s for tests.
    Tables.count(
        db.dataSource(),
        "with u as (update targets set remind_every_ms = "
            + PERIOD_MS
            + " returning 1) select count(*) from u");

    try (MonitorService first = MonitorService.start(config(db, "first"))) {
      for (int i = 0; i < 3; i++) {
        first.recorder().record(ProbeResult.down(SERVICE, Instant.now(), 5, 503, "HTTP 503"));
      }
      awaitRows(db, 2); // FAILED + the first REMINDER
    }
    int afterFirst = rows(db).size();

    try (MonitorService second = MonitorService.start(config(db, "second"));
        MonitorService third = MonitorService.start(config(db, "third"))) {
      awaitRows(db, afterFirst + 3);
    }

    List<Instant> times = rows(db);
    assertThat(times.size()).isGreaterThanOrEqualTo(5);
    for (int i = 1; i < times.size(); i++) {
      assertThat(Duration.between(times.get(i - 1), times.get(i)))
          .as("row %d follows row %d by one period at least (none twice): %s", i, i - 1, times)
          .isGreaterThanOrEqualTo(Duration.ofMillis(PERIOD_MS));
    }
    assertThat(
            Tables.count(
                db.dataSource(),
                "select count(distinct incident_id) from outbox where type = 'REMINDER'"))
        .isEqualTo(1);
  }

  private static MonitorConfig config(TestDatabase db, String instance) {
    Map<String, String> env = TestMonitor.settings(db, null, false);
    env.put("VIGIL_DB_POOL_SIZE", "3");
    env.put("VIGIL_INSTANCE_ID", instance);
    env.put("VIGIL_MONITOR_ANNOUNCE_INTERVAL", "100ms");
    return new MonitorConfig(new Settings(env));
  }

  private static void awaitRows(TestDatabase db, int count) {
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> rows(db).size() >= count);
  }

  /** Outbox rows of the incident (FAILED, then REMINDERs) by the database's clock, in order. */
  private static List<Instant> rows(TestDatabase db) throws SQLException {
    try (Connection connection = db.dataSource().getConnection()) {
      return Tables.rows(
              connection,
              "select extract(epoch from created_at) * 1000000 from outbox order by seq")
          .stream()
          .map(micros -> Instant.EPOCH.plusNanos((long) (Double.parseDouble(micros) * 1000)))
          .toList();
    }
  }
}
