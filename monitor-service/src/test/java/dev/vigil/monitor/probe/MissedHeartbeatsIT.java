package dev.vigil.monitor.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.Tables;
import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.alert.ProbeStatus;
import dev.vigil.monitor.alert.Recorder;
import dev.vigil.monitor.alert.ResultSource;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The missed-heartbeat watch on the real database, step by step (no waiting for deadlines): the
 * race between a push and a claim, one DOWN per heartbeat, and the grace after the watch's start.
 */
@ExtendWith(VigilInfraExtension.class)
class MissedHeartbeatsIT {
  private static final Duration HEARTBEAT = Duration.ofSeconds(60);
  private static final Duration GRACE = Duration.ofSeconds(30);

  private DataSource dataSource;
  private Recorder recorder;

  @BeforeEach
  void setUp(TestDatabase db) {
    dataSource = db.dataSource();
    MonitorSchema.migrate(dataSource);
    new TargetStore(dataSource).add(TargetSpec.push("cron").withHeartbeat(HEARTBEAT));
    recorder = new Recorder(dataSource, new SimpleMeterRegistry());
  }

  private MissedHeartbeats watcher() {
    return new MissedHeartbeats(
        dataSource,
        recorder,
        new SchedulerSettings("test", Duration.ofSeconds(30), 50, Duration.ofMillis(50), 100),
        GRACE);
  }

  /** A watcher that has been running for a day. */
  private MissedHeartbeats runningWatcher() {
    return watcher().watchingSince(Timestamp.from(Instant.now().minus(Duration.ofDays(1))));
  }

  @Test
  void aPushThatTookItsNumberBeforeTheClaimButCommittedAfterItCancelsTheMissedHeartbeat()
      throws Exception {
    setDeadline("now() - interval '5 minutes'");
    MissedHeartbeats watch = runningWatcher();
    try (Connection push = dataSource.getConnection()) {
      // The push holds the service's row lock and has its number, but has not yet moved the
      // deadline: the moment the issue describes.
      push.setAutoCommit(false);
      long pushOrder;
      try (Statement statement = push.createStatement()) {
        statement.execute("select 1 from alert_state where service = 'cron' for update");
        try (ResultSet rs = statement.executeQuery("select nextval('result_order')")) {
          rs.next();
          pushOrder = rs.getLong(1);
        }
      }
      CompletableFuture<Integer> claimed =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return watch.runOnce();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      // The recorder's lock statement, known by its start: pg_stat_activity keeps only the first
      // track_activity_query_size (1 kB) of a query, which ends before its "from alert_state".
      await("the watch claimed the target and waits for the service's row lock")
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  Tables.count(
                          dataSource,
                          "select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                              + " and query like 'with locked as materialized%'")
                      == 1);
      assertThat(
              recorder
                  .record(
                      push,
                      new ProbeResult(
                              "cron",
                              ProbeStatus.UP,
                              null,
                              null,
                              null,
                              null,
                              ResultSource.PUSH,
                              null)
                          .withOrder(pushOrder))
                  .accepted())
          .isTrue();
      push.commit();
      assertThat(claimed.get()).isEqualTo(1);
    }
    assertThat(count("select count(*) from check_history where source = 'heartbeat'"))
        .as("no DOWN for a heartbeat that arrived")
        .isZero();
    assertThat(count("select count(*) from health_status where status = 'UP'")).isEqualTo(1);
    assertThat(count("select count(*) from probe_schedule where lease_token is not null"))
        .as("lease released")
        .isZero();
    assertThat(watch.runOnce()).as("the pushed result moved the deadline").isZero();
  }

  @Test
  void aSilentTargetIsRecordedDownOncePerHeartbeatNotPerHeartbeatPlusGrace() throws Exception {
    setDeadline("now() - interval '31 seconds'");
    MissedHeartbeats watch = runningWatcher();
    assertThat(watch.runOnce()).isEqualTo(1);
    assertThat(count("select count(*) from check_history where source = 'heartbeat'")).isEqualTo(1);
    // The next DOWN is due one heartbeat after this one: deadline + grace is one heartbeat away.
    assertThat(secondsToNextDown()).isBetween(HEARTBEAT.toSeconds() - 5, HEARTBEAT.toSeconds());
    assertThat(watch.runOnce()).as("not claimed again before the next heartbeat").isZero();

    // After a long silence (the deadline far behind), one DOWN, then one heartbeat from now.
    setDeadline("now() - interval '3 hours'");
    assertThat(watch.runOnce()).isEqualTo(1);
    assertThat(watch.runOnce()).as("no burst of DOWNs for the missed hours").isZero();
    assertThat(secondsToNextDown()).isBetween(HEARTBEAT.toSeconds() - 5, HEARTBEAT.toSeconds());
  }

  @Test
  void aWatcherThatJustStartedGivesPushersAHeartbeatBeforeCallingThemSilent() throws Exception {
    // Every monitor was down for ten minutes: the pusher's results were refused meanwhile.
    setDeadline("now() - interval '10 minutes'");
    MissedHeartbeats watch = watcher();
    assertThat(watch.runOnce()).as("just started: no DOWN yet").isZero();
    assertThat(count("select count(*) from check_history")).isZero();

    // Once the watcher has watched for a heartbeat plus the grace, the silence is reported.
    watch.watchingSince(
        Timestamp.from(Instant.now().minus(HEARTBEAT).minus(GRACE).minusSeconds(5)));
    assertThat(watch.runOnce()).isEqualTo(1);
    assertThat(count("select count(*) from check_history where source = 'heartbeat'")).isEqualTo(1);
  }

  private long secondsToNextDown() {
    return count(
        "select extract(epoch from next_due_at + interval '"
            + GRACE.toSeconds()
            + " seconds' - now())::bigint from probe_schedule where target = 'cron'");
  }

  private long count(String sql) {
    return Tables.count(dataSource, sql);
  }

  private void setDeadline(String expression) {
    Tables.count(
        dataSource,
        "with u as (update probe_schedule set next_due_at = "
            + expression
            + " where target = 'cron' returning 1) select count(*) from u");
  }
}
