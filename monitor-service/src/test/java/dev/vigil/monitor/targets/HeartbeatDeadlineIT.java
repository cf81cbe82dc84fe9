package dev.vigil.monitor.targets;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.Tables;
import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.alert.ProbeStatus;
import dev.vigil.monitor.alert.Recorder;
import dev.vigil.monitor.alert.ResultSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Where a push target's heartbeat deadline ({@code probe_schedule.next_due_at}) stands after each
 * kind of change, read with the database's clock: no waiting involved.
 */
@ExtendWith(VigilInfraExtension.class)
class HeartbeatDeadlineIT {
  private DataSource dataSource;
  private TargetStore store;

  @BeforeEach
  void setUp(TestDatabase db) {
    dataSource = db.dataSource();
    MonitorSchema.migrate(dataSource);
    store = new TargetStore(dataSource);
  }

  @Test
  void deadlineStartsWithTheHeartbeatAndRestoringTheSameDefinitionKeepsIt() {
    TargetSpec nightly = TargetSpec.push("nightly").withHeartbeat(Duration.ofHours(24));
    store.upsertAll(List.of(nightly), TargetStore.Source.FILE);
    assertThat(secondsLeft()).isBetween(24 * 3600 - 60L, 24 * 3600L);
    setDeadline("now() + interval '1 hour'");

    // The file is stored again at every start: an unchanged heartbeat keeps the running deadline.
    store.upsertAll(List.of(nightly), TargetStore.Source.FILE);
    assertThat(secondsLeft()).isBetween(3600 - 60L, 3600L);

    // A changed heartbeat starts afresh.
    store.update(nightly.withHeartbeat(Duration.ofHours(2)));
    assertThat(secondsLeft()).isBetween(2 * 3600 - 60L, 2 * 3600L);
  }

  @Test
  void enablingStartsAfreshAndEveryRecordedResultMovesTheDeadline() {
    store.add(TargetSpec.push("nightly").withHeartbeat(Duration.ofMinutes(10)));
    store.setEnabled("nightly", false);
    setDeadline("now() - interval '3 days'");

    store.setEnabled("nightly", true);
    assertThat(secondsLeft()).isBetween(600 - 60L, 600L);
    store.setEnabled("nightly", true);
    assertThat(secondsLeft())
        .as("enabling an enabled target changes nothing")
        .isBetween(540L, 600L);

    setDeadline("now() - interval '1 minute'");
    new Recorder(dataSource, new SimpleMeterRegistry())
        .record(
            new ProbeResult(
                "nightly", ProbeStatus.UP, null, null, null, null, ResultSource.PUSH, null));
    assertThat(secondsLeft()).isBetween(600 - 60L, 600L);
  }

  private long secondsLeft() {
    return Tables.count(
        dataSource,
        "select extract(epoch from next_due_at - now())::bigint from probe_schedule"
            + " where target = 'nightly'");
  }

  private void setDeadline(String expression) {
    Tables.count(
        dataSource,
        "with u as (update probe_schedule set next_due_at = "
            + expression
            + " where target = 'nightly' returning 1) select count(*) from u");
  }
}
