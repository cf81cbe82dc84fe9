package dev.vigil.monitor.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.Tables;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The rollup against a target deleted while it sums that target's history, on the real database:
 * the delete commits after the rollup's statement read the history and before its foreign key
 * check, which then fails; the rollup sums again and the run succeeds without the deleted target.
 */
@ExtendWith(VigilInfraExtension.class)
class UptimeRollupIT {

  @Test
  void aTargetDeletedWhileItsHistoryIsSummedDoesNotFailTheRun(TestDatabase db) throws Exception {
    DataSource dataSource = db.dataSource();
    MonitorSchema.migrate(dataSource);
    for (String name : new String[] {"gone", "kept"}) {
      Tables.execute(
          dataSource,
          """
          insert into targets (name, kind, interval_ms, timeout_ms, connect_timeout_ms,
                               accepted_status, failure_threshold, recovery_threshold, source)
          values ('%s', 'push', 10000, 1000, 1000, '200-299', 3, 1, 'api')
          """
              .formatted(name));
      Tables.execute(
          dataSource,
          """
          insert into check_history (service, status, started_at, recorded_at, source)
          select '%s', 'UP', now() - n * interval '1 minute', now() - n * interval '1 minute',
                 'push'
            from generate_series(1, 5) as n
          """
              .formatted(name));
    }
    UptimeRollup rollup = new UptimeRollup(dataSource, Duration.ofHours(1));

    try (Connection deleting = dataSource.getConnection()) {
      deleting.setAutoCommit(false);
      try (Statement statement = deleting.createStatement()) {
        statement.execute("delete from check_history where service = 'gone'");
        statement.execute("delete from targets where name = 'gone'");
      }
      // The rollup reads gone's history (the delete is not committed) and its foreign key check
      // waits for the deleting transaction's lock on the target row.
      CompletableFuture<Integer> run =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return rollup.runOnce();
                } catch (java.sql.SQLException e) {
                  throw new IllegalStateException(e);
                }
              });
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  Tables.count(
                          dataSource,
                          "select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                              + " and query like '%insert into status_hourly%'")
                      == 1);
      deleting.commit();

      assertThat(run.get()).as("buckets written: kept's hour(s) only").isPositive();
    }
    assertThat(
            Tables.count(dataSource, "select count(*) from status_hourly where service = 'gone'"))
        .isZero();
    assertThat(
            Tables.count(
                dataSource, "select sum(up_count) from status_hourly where service = 'kept'"))
        .isEqualTo(5);
  }
}
