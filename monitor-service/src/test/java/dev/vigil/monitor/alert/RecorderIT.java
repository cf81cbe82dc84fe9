package dev.vigil.monitor.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertKind;
import dev.vigil.contract.OutboxContract;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.Tables;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VigilInfraExtension.class)
class RecorderIT {
  private static final String SERVICE = "payments";

  private DataSource dataSource;
  private Recorder recorder;
  // Probe start times (informational: results are ordered by the database, times are its clock).
  private Instant now = Instant.parse("2026-01-01T00:00:00Z");

  @BeforeEach
  void setUp(TestDatabase db) {
    dataSource = db.dataSource();
    MonitorSchema.migrate(dataSource);
    new TargetStore(dataSource).add(TargetSpec.push(SERVICE));
    recorder = new Recorder(dataSource, new SimpleMeterRegistry());
  }

  @Test
  void thirdConsecutiveFailureOpensIncidentAndFirstSuccessClosesIt() throws SQLException {
    down();
    down();
    assertThat(outbox()).isEmpty();

    RecordOutcome third = down();
    List<AlertEvent> afterThird = outbox();
    assertThat(afterThird).hasSize(1);
    AlertEvent failed = afterThird.get(0);
    assertThat(failed.kind()).isEqualTo(AlertKind.FAILED);
    assertThat(failed.consecutiveFailures()).isEqualTo(3);
    assertThat(failed.lastError()).isEqualTo("HTTP 503");
    assertThat(failed.incidentId()).isEqualTo(third.event().incidentId());
    assertThat(openIncidents()).containsExactly(failed.incidentId());

    down();
    down();
    assertThat(outbox()).hasSize(1);

    up();
    List<AlertEvent> afterUp = outbox();
    assertThat(afterUp).hasSize(2);
    AlertEvent recovered = afterUp.get(1);
    assertThat(recovered.kind()).isEqualTo(AlertKind.RECOVERED);
    assertThat(recovered.incidentId()).isEqualTo(failed.incidentId());
    assertThat(recovered.consecutiveFailures()).isEqualTo(5);
    assertThat(recovered.openedAt()).isEqualTo(failed.occurredAt());
    assertThat(recovered.occurredAt()).isAfter(failed.occurredAt());
    assertThat(recovered.downtime())
        .as("from the third failure to the first success, by the database's clock")
        .isEqualTo(Duration.between(failed.occurredAt(), recovered.occurredAt()));
    assertThat(openIncidents()).isEmpty();

    up();
    up();
    assertThat(outbox()).hasSize(2);
    assertThat(Tables.count(dataSource, "select count(*) from check_history")).isEqualTo(8);
    assertThat(
            Tables.count(
                dataSource,
                "select probe_count from incidents where id = '" + failed.incidentId() + "'"))
        .isEqualTo(6);
  }

  @Test
  void outboxRowFollowsTheDebeziumShapeAndTheContract() throws SQLException {
    down();
    down();
    AlertEvent event = down().event();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "select id, aggregatetype, aggregateid, type, incident_id, schema_version,"
                    + " payload::text from "
                    + OutboxContract.TABLE)) {
      try (ResultSet rs = statement.executeQuery()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getObject(1, UUID.class)).isEqualTo(event.eventId());
        assertThat(rs.getString(2)).isEqualTo(OutboxContract.AGGREGATE_TYPE);
        assertThat(rs.getString(3)).isEqualTo(SERVICE);
        assertThat(rs.getString(4)).isEqualTo("FAILED");
        assertThat(rs.getObject(5, UUID.class)).isEqualTo(event.incidentId());
        assertThat(rs.getInt(6)).isEqualTo(AlertEvent.CURRENT_SCHEMA_VERSION);
        assertThat(AlertEventJson.read(rs.getString(7).getBytes(StandardCharsets.UTF_8)))
            .isEqualTo(event);
        assertThat(rs.next()).isFalse();
      }
    }
  }

  @Test
  void withRecoveryThresholdTwoALoneSuccessDoesNotRecover() throws SQLException {
    new TargetStore(dataSource).update(TargetSpec.push(SERVICE).withThresholds(3, 2));
    down();
    down();
    down();
    assertThat(outbox()).extracting(AlertEvent::kind).containsExactly(AlertKind.FAILED);
    up();
    assertThat(outbox()).hasSize(1);
    down();
    up();
    assertThat(outbox()).hasSize(1);
    up();
    List<AlertEvent> events = outbox();
    assertThat(events)
        .extracting(AlertEvent::kind)
        .containsExactly(AlertKind.FAILED, AlertKind.RECOVERED);
    assertThat(events.get(1).incidentId()).isEqualTo(events.get(0).incidentId());
    assertThat(events.get(1).consecutiveFailures()).isEqualTo(1);
  }

  @Test
  void recordingInsideAnOuterTransactionThatRollsBackLeavesEveryTableAsBefore()
      throws SQLException {
    down();
    down();
    Map<String, List<String>> before = Tables.snapshot(dataSource);

    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      RecordOutcome outcome =
          recorder.record(connection, ProbeResult.down(SERVICE, next(), 5, 503, "HTTP 503"));
      assertThat(outcome.event()).as("the third failure announces FAILED").isNotNull();
      assertThat(Tables.rows(connection, "select id from outbox")).hasSize(1);
      connection.rollback();
    }

    assertThat(Tables.snapshot(dataSource)).isEqualTo(before);
    assertThat(down().event()).as("the state machine is where it was").isNotNull();
  }

  @Test
  void resultClaimedBeforeTheLastRecordedOneIsStaleAndWritesNothing() throws SQLException {
    long first = claimOrder();
    long second = claimOrder();
    recorder.record(ProbeResult.down(SERVICE, next(), 5, 503, "HTTP 503").withOrder(second));
    Map<String, List<String>> before = Tables.snapshot(dataSource);

    // Its probe started later by its host's clock, but it was claimed earlier: stale.
    RecordOutcome older = recorder.record(ProbeResult.up(SERVICE, next(), 5, 200).withOrder(first));
    RecordOutcome same = recorder.record(ProbeResult.up(SERVICE, next(), 5, 200).withOrder(second));

    assertThat(older.accepted()).isFalse();
    assertThat(older.rejectedReason()).startsWith("stale");
    assertThat(same.accepted()).isFalse();
    assertThat(Tables.snapshot(dataSource)).isEqualTo(before);
  }

  @Test
  void resultsWhoseHostClocksRunBackwardsAreAllRecordedInClaimOrder() throws SQLException {
    // Two instances, the second's clock 30 s behind: each result is claimed after the previous one.
    Instant fast = Instant.parse("2026-01-01T00:00:30Z");
    Instant slow = Instant.parse("2026-01-01T00:00:00Z");
    for (int i = 0; i < 6; i++) {
      Instant startedAt = (i % 2 == 0 ? fast : slow).plusSeconds(i);
      RecordOutcome outcome =
          recorder.record(
              ProbeResult.down(SERVICE, startedAt, 5, 503, "HTTP 503").withOrder(claimOrder()));
      assertThat(outcome.accepted()).as("result %d: %s", i, outcome.rejectedReason()).isTrue();
    }
    assertThat(Tables.count(dataSource, "select count(*) from check_history")).isEqualTo(6);
    assertThat(outbox()).extracting(AlertEvent::kind).containsExactly(AlertKind.FAILED);
  }

  @Test
  void pushedStartedAtIsComparedOnlyWithTheCheckersOwnEarlierValues() throws SQLException {
    Instant checker = Instant.parse("2026-01-01T00:00:00Z");
    assertThat(recorder.record(push(checker)).accepted()).isTrue();
    // A probe-less result in between (no startedAt: placed by arrival) does not move the bar.
    assertThat(
            recorder
                .record(
                    new ProbeResult(
                        SERVICE, ProbeStatus.UP, null, null, null, null, ResultSource.PUSH, null))
                .accepted())
        .isTrue();
    assertThat(recorder.record(push(checker.minusSeconds(1))).rejectedReason())
        .startsWith("stale: startedAt");
    assertThat(recorder.record(push(checker.plusSeconds(1))).accepted()).isTrue();
  }

  private static ProbeResult push(Instant startedAt) {
    return new ProbeResult(
        SERVICE, ProbeStatus.UP, startedAt, null, null, null, ResultSource.PUSH, null);
  }

  private long claimOrder() {
    return Tables.count(dataSource, "select nextval('result_order')");
  }

  @Test
  void resultForUnknownServiceIsRefusedAndWritesNothing() {
    Map<String, List<String>> before = Tables.snapshot(dataSource);
    assertThatThrownBy(() -> recorder.record(ProbeResult.up("nobody", next(), 1, 200)))
        .isInstanceOf(UnknownServiceException.class)
        .hasMessageContaining("nobody");
    assertThat(Tables.snapshot(dataSource)).isEqualTo(before);
  }

  @Test
  void healthStatusKeepsSinceUntilTheStatusChanges() throws SQLException {
    up();
    String since =
        Tables.rows(dataSource.getConnection(), "select since from health_status").get(0);
    up();
    assertThat(Tables.rows(dataSource.getConnection(), "select status, since from health_status"))
        .containsExactly("UP | " + since);
    down();
    assertThat(
            Tables.rows(
                dataSource.getConnection(),
                "select status, since = '" + since + "' from health_status"))
        .containsExactly("DOWN | f");
  }

  private RecordOutcome down() {
    return recorder.record(ProbeResult.down(SERVICE, next(), 5, 503, "HTTP 503"));
  }

  private RecordOutcome up() {
    return recorder.record(ProbeResult.up(SERVICE, next(), 5, 200));
  }

  private Instant next() {
    now = now.plusSeconds(1);
    return now;
  }

  private List<AlertEvent> outbox() throws SQLException {
    List<AlertEvent> events = new ArrayList<>();
    try (Connection connection = dataSource.getConnection()) {
      for (String payload :
          Tables.rows(connection, "select payload::text from outbox order by seq")) {
        events.add(AlertEventJson.read(payload.getBytes(StandardCharsets.UTF_8)));
      }
    }
    return events;
  }

  private List<UUID> openIncidents() throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      return Tables.rows(connection, "select id from incidents where closed_at is null").stream()
          .map(UUID::fromString)
          .toList();
    }
  }
}
