package dev.vigil.monitor.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.Tables;
import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.alert.Recorder;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VigilInfraExtension.class)
class RetentionJobIT {

  @Test
  void expiredHistoryAndOutboxRowsAreDeletedInBatchesWithoutBlockingOnLockedRowsOrRecording(
      TestDatabase db) throws Exception {
    MonitorSchema.migrate(db.dataSource());
    new TargetStore(db.dataSource()).add(TargetSpec.push("svc"));
    Recorder recorder = new Recorder(db.dataSource(), new SimpleMeterRegistry());
    Instant start = Instant.now().minusSeconds(600);
    for (int i = 0; i < 30; i++) {
      recorder.record(ProbeResult.up("svc", start.plusSeconds(i), 1, 200));
    }
    for (int i = 30; i < 33; i++) { // three failures: one young FAILED outbox row
      recorder.record(ProbeResult.down("svc", start.plusSeconds(i), 1, null, "connection refused"));
    }
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement()) {
      // 25 rows become old; the 8 newest stay young.
      statement.execute(
          "update check_history set recorded_at = now() - interval '2 days'"
              + " where id <= (select min(id) + 24 from check_history)");
      // Outbox rows are append-only: the old ones are written old.
      for (int days : new int[] {9, 8}) {
        statement.execute(
            "insert into outbox (id, aggregatetype, aggregateid, type, payload, incident_id,"
                + " schema_version, created_at) values (gen_random_uuid(), 'service', 'svc',"
                + " 'FAILED', '{}', gen_random_uuid(), 1, now() - interval '"
                + days
                + " days')");
      }
    }

    try (Connection holder = db.connect()) {
      // Another transaction holds one old row and the service's state row, as a recorder would.
      holder.setAutoCommit(false);
      try (Statement statement = holder.createStatement()) {
        statement.execute("select * from check_history order by id limit 1 for update");
        statement.execute("select * from alert_state where service = 'svc' for update");
      }
      RetentionJob job =
          new RetentionJob(
              db.dataSource(),
              Clock.systemUTC(),
              List.of(
                  RetentionJob.Trim.history(Duration.ofDays(1)),
                  RetentionJob.Trim.outbox(Duration.ofDays(7))),
              10,
              Duration.ofMinutes(1));
      Map<String, Long> deleted =
          CompletableFuture.supplyAsync(
                  () -> {
                    try {
                      return job.runOnce();
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                  })
              .get(10, TimeUnit.SECONDS);
      assertThat(deleted)
          .as("all old history rows but the locked one, in batches of 10; the two old outbox rows")
          .containsExactly(entry("check_history", 24L), entry("outbox", 2L));
      holder.rollback();
    }
    assertThat(Tables.count(db.dataSource(), "select count(*) from check_history")).isEqualTo(9);
    assertThat(
            Tables.count(
                db.dataSource(),
                "select count(*) from check_history where recorded_at > now() - interval '1 day'"))
        .isEqualTo(8);
    try (Connection connection = db.connect()) {
      assertThat(Tables.rows(connection, "select type from outbox"))
          .as("the young FAILED row stays")
          .containsExactly("FAILED");
    }
  }
}
