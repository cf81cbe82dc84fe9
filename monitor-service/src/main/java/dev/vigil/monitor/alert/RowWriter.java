package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.OutboxContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;

/**
 * The writer of a {@link RecordingPlan} of exactly one result (a pushed result, a missed heartbeat,
 * a probe recorded alone): the same rows as the {@link SetWriter}, with scalar parameters instead
 * of arrays. One result touches at most one incident and writes at most one event, and the recorder
 * benchmark measured the set-based statements at about three times the PostgreSQL CPU for one row
 * (tools/benchmarks/REPORT.md, "Recorder: one recording path"). The plan decides; this only writes.
 * Nothing is committed here.
 */
final class RowWriter implements PlanWriter {

  // The incident open before the result: a probe counted, the last error kept, closed by it.
  private static final String UPDATE_INCIDENT =
      """
      update incidents
         set probe_count = probe_count + ?,
             last_error = coalesce(?, last_error),
             closed_at = case when ? then ?::timestamptz else closed_at end
       where id = ? and (not ? or closed_at is null)
      returning opened_at, announced_at is not null
      """;

  // Everything else in one round trip with a fixed text: the incident and the outbox row are
  // inserted only when their flag is set. health_status keeps "since" while the status stays.
  private static final String WRITE =
      """
      with opened as (
          insert into incidents (id, service, opened_at, first_error, last_error, probe_count,
                                 announced_at, last_announced_at, closed_at, held_reason,
                                 not_before)
          select ?::uuid, ?, ?::timestamptz, ?, ?, ?,
                 case when ? then ?::timestamptz end, case when ? then ?::timestamptz end,
                 case when ? then ?::timestamptz end, ?, ?::timestamptz
           where ?
      ), state as (
          update alert_state
             set consecutive_failures = ?, consecutive_successes = ?,
                 failures_before_successes = ?, open_incident_id = ?::uuid,
                 last_started_at = ?::timestamptz, last_error = ?, updated_at = ?::timestamptz,
                 last_result_seq = ?, last_pushed_started_at = ?::timestamptz
           where service = ?
      ), deadline as (
          update probe_schedule d
             set next_due_at = ?::timestamptz + make_interval(secs => t.heartbeat_ms / 1000.0)
            from targets t
           where d.target = ? and t.name = d.target and t.kind = 'push'
             and t.heartbeat_ms is not null
      ), health as (
          insert into health_status
                 (service, status, since, checked_at, started_at, latency_ms, http_status, error,
                  source)
          values (?, ?, ?::timestamptz, ?::timestamptz, ?::timestamptz, ?, ?, ?, ?)
          on conflict (service) do update
             set since = case when health_status.status = excluded.status
                              then health_status.since else excluded.since end,
                 status = excluded.status, checked_at = excluded.checked_at,
                 started_at = excluded.started_at, latency_ms = excluded.latency_ms,
                 http_status = excluded.http_status, error = excluded.error,
                 source = excluded.source
      ), history as (
          insert into check_history
                 (service, status, recorded_at, started_at, latency_ms, http_status, error, source,
                  location, maintenance)
          values (?, ?, ?::timestamptz, ?::timestamptz, ?, ?, ?, ?, ?, ?)
      )
      insert into %s (%s)
      select ?::uuid, '%s', ?, ?, ?::jsonb, ?::uuid, ?, ?::timestamptz, ?
       where ?
      """
          .formatted(
              OutboxContract.TABLE, IncidentSql.OUTBOX_COLUMNS, OutboxContract.AGGREGATE_TYPE);

  @Override
  public void updateIncidents(Connection connection, Instant now, List<IncidentChange> changes)
      throws SQLException {
    IncidentChange change = only(changes, "incident");
    try (PreparedStatement statement = connection.prepareStatement(UPDATE_INCIDENT)) {
      Params p = new Params(statement);
      p.int4(change.probes());
      p.text(change.lastError());
      p.bool(change.closes());
      p.time(now);
      p.uuid(change.id());
      p.bool(change.closes());
      try (ResultSet rs = statement.executeQuery()) {
        if (rs.next()) {
          change.openedAt(rs.getObject(1, OffsetDateTime.class).toInstant());
          change.announced(rs.getBoolean(2));
        } else if (change.closes()) {
          throw new IllegalStateException("open incident " + change.id() + " not found");
        }
      }
    }
  }

  @Override
  public void write(Connection connection, RecordingPlan plan) throws SQLException {
    RecordingPlan.Accepted accepted = only(plan.accepted(), "result");
    ServiceRun run = only(plan.lastPerService(), "service");
    List<IncidentChange> opened = plan.opened();
    IncidentChange incident = opened.isEmpty() ? null : only(opened, "opened incident");
    List<AlertEvent> events = plan.events();
    AlertEvent event = events.isEmpty() ? null : only(events, "event");
    ProbeResult result = accepted.result();
    Instant now = plan.now();
    try (PreparedStatement statement = connection.prepareStatement(WRITE)) {
      Params p = new Params(statement);
      // opened
      p.uuid(incident == null ? null : incident.id());
      p.text(result.service());
      p.time(now);
      p.text(incident == null ? null : incident.firstError());
      p.text(incident == null ? null : incident.lastError());
      p.int4(incident == null ? 0 : incident.probes());
      boolean announced = incident != null && incident.announced();
      p.bool(announced);
      p.time(now);
      p.bool(announced);
      p.time(now);
      p.bool(incident != null && incident.closes());
      p.time(now);
      p.text(incident == null ? null : incident.heldReason());
      p.text(incident == null ? null : incident.notBeforeText());
      p.bool(incident != null);
      // state
      AlertStateMachine.State state = run.state();
      p.int4(state.failures());
      p.int4(state.successes());
      p.int4(state.failuresBeforeSuccesses());
      p.uuid(state.openIncident());
      p.time(run.startedAt());
      p.text(run.lastError());
      p.time(now);
      p.int8(run.order());
      p.time(run.pushedStartedAt());
      p.text(result.service());
      // deadline
      p.time(now);
      p.text(result.service());
      // health
      p.text(result.service());
      p.text(run.status().name());
      p.time(now);
      p.time(now);
      p.time(run.startedAt());
      p.int8(result.latencyMs());
      p.int4(result.httpStatus());
      p.text(run.healthError());
      p.text(result.source().column());
      // history
      p.text(result.service());
      p.text(result.status().name());
      p.time(now);
      p.time(accepted.startedAt());
      p.int8(result.latencyMs());
      p.int4(result.httpStatus());
      p.text(result.error());
      p.text(result.source().column());
      p.text(result.location());
      p.bool(plan.inMaintenance(result.service()));
      // outbox
      p.uuid(event == null ? null : event.eventId());
      p.text(event == null ? null : event.service());
      p.text(event == null ? null : event.kind().name());
      p.text(event == null ? null : AlertEventJson.write(event));
      p.uuid(event == null ? null : event.incidentId());
      p.int4(event == null ? null : event.schemaVersion());
      p.time(now);
      p.text(event == null ? null : plan.eventTraces().getFirst());
      p.bool(event != null);
      statement.executeUpdate();
    }
    List<RecordingPlan.Moved> moved = plan.movedLocations();
    if (!moved.isEmpty()) {
      LocationWriter.write(connection, now, moved);
    }
  }

  private static <T> T only(List<T> rows, String what) {
    if (rows.size() != 1) {
      throw new IllegalStateException("the row writer takes one " + what + ", got " + rows.size());
    }
    return rows.getFirst();
  }

  /** Binds the parameters of a statement one after the other, typed also when null. */
  private static final class Params {
    private final PreparedStatement statement;
    private int index;

    Params(PreparedStatement statement) {
      this.statement = statement;
    }

    void text(String value) throws SQLException {
      statement.setString(++index, value);
    }

    void int4(Integer value) throws SQLException {
      if (value == null) {
        statement.setNull(++index, Types.INTEGER);
      } else {
        statement.setInt(++index, value);
      }
    }

    void int8(Long value) throws SQLException {
      if (value == null) {
        statement.setNull(++index, Types.BIGINT);
      } else {
        statement.setLong(++index, value);
      }
    }

    void bool(boolean value) throws SQLException {
      statement.setBoolean(++index, value);
    }

    void uuid(UUID value) throws SQLException {
      statement.setObject(++index, value, Types.OTHER);
    }

    void time(Instant value) throws SQLException {
      if (value == null) {
        statement.setNull(++index, Types.TIMESTAMP_WITH_TIMEZONE);
      } else {
        statement.setObject(++index, OffsetDateTime.ofInstant(value, ZoneOffset.UTC));
      }
    }
  }
}
