package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.OutboxContract;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * The writer of a {@link RecordingPlan} of several results, with set-based statements: one update
 * of the incidents that were open before (its answer completes the plan), one statement for every
 * other write. Every value is bound as an array parameter, so the statement text (and its
 * server-side plan) is the same for any number of results. Nothing is committed here.
 */
final class SetWriter implements PlanWriter {

  // Incidents open before the plan, read in this statement (after the lock, so it sees every
  // commit of an earlier lock holder): probes counted, last error kept, closed by a result.
  private static final String UPDATE_INCIDENTS =
      """
      update incidents i
         set probe_count = i.probe_count + u.probes,
             last_error = coalesce(u.last_error, i.last_error),
             closed_at = case when u.closes then ?::timestamptz else i.closed_at end
        from unnest(?::uuid[], ?::int[], ?::text[], ?::boolean[]) as u(id, probes, last_error, closes)
       where i.id = u.id and (not u.closes or i.closed_at is null)
      returning i.id, i.opened_at, i.announced_at is not null
      """;

  // Everything else in one round trip. Each service appears once in the state, health and
  // deadline parts (its last accepted result); history and outbox rows keep the order of the
  // results (their identity columns number them as listed). health_status is updated where it
  // exists and inserted where not: "since" moves when the status changed before or among them.
  private static final String WRITE =
      """
      with p as (
          select ?::timestamptz as now
      ), opened as (
          insert into incidents (id, service, opened_at, first_error, last_error, probe_count,
                                 announced_at, last_announced_at, closed_at, held_reason,
                                 not_before)
          select u.id, u.service, p.now, u.first_error, u.last_error, u.probes,
                 case when u.announced then p.now end, case when u.announced then p.now end,
                 case when u.closed then p.now end, u.held_reason, u.not_before::timestamptz
            from p, unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::int[], ?::boolean[],
                           ?::boolean[], ?::text[], ?::text[])
                    as u(id, service, first_error, last_error, probes, announced, closed,
                         held_reason, not_before)
      ), src as (
          select * from unnest(?::text[], ?::int[], ?::int[], ?::int[], ?::uuid[], ?::text[],
                               ?::text[], ?::bigint[], ?::text[], ?::text[], ?::bigint[],
                               ?::int[], ?::text[], ?::text[], ?::boolean[])
                 as s(service, failures, successes, before, incident, started_at, last_error,
                      seq, pushed_started_at, status, latency_ms, http_status, error, source,
                      status_changed)
      ), state as (
          update alert_state a
             set consecutive_failures = s.failures, consecutive_successes = s.successes,
                 failures_before_successes = s.before, open_incident_id = s.incident,
                 last_started_at = s.started_at::timestamptz, last_error = s.last_error,
                 updated_at = p.now, last_result_seq = s.seq,
                 last_pushed_started_at = s.pushed_started_at::timestamptz
            from src s, p
           where a.service = s.service
      ), deadline as (
          update probe_schedule d
             set next_due_at = p.now + make_interval(secs => t.heartbeat_ms / 1000.0)
            from src s, targets t, p
           where d.target = s.service and t.name = d.target and t.kind = 'push'
             and t.heartbeat_ms is not null
      ), health as (
          update health_status h
             set since = case when not s.status_changed and h.status = s.status
                              then h.since else p.now end,
                 status = s.status, checked_at = p.now, started_at = s.started_at::timestamptz,
                 latency_ms = s.latency_ms, http_status = s.http_status, error = s.error,
                 source = s.source
            from src s, p
           where h.service = s.service
          returning h.service
      ), new_health as (
          insert into health_status
                 (service, status, since, checked_at, started_at, latency_ms, http_status, error,
                  source)
          select s.service, s.status, p.now, p.now, s.started_at::timestamptz, s.latency_ms,
                 s.http_status, s.error, s.source
            from src s, p
           where not exists (select 1 from health where health.service = s.service)
      ), history as (
          insert into check_history
                 (service, status, recorded_at, started_at, latency_ms, http_status, error, source,
                  location, maintenance)
          select h.service, h.status, p.now, h.started_at::timestamptz, h.latency_ms,
                 h.http_status, h.error, h.source, h.location, h.maintenance
            from p, unnest(?::text[], ?::text[], ?::text[], ?::bigint[], ?::int[], ?::text[],
                           ?::text[], ?::text[], ?::boolean[]) with ordinality
                    as h(service, status, started_at, latency_ms, http_status, error, source,
                         location, maintenance, n)
           order by h.n
      )
      insert into %s (%s)
      select e.id, '%s', e.service, e.type, e.payload::jsonb, e.incident, e.version, p.now,
             e.trace
        from p, unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::uuid[], ?::int[],
                       ?::text[])
                with ordinality as e(id, service, type, payload, incident, version, trace, n)
       order by e.n
      """
          .formatted(
              OutboxContract.TABLE, IncidentSql.OUTBOX_COLUMNS, OutboxContract.AGGREGATE_TYPE);

  @Override
  public void updateIncidents(Connection connection, Instant now, List<IncidentChange> changes)
      throws SQLException {
    Map<UUID, IncidentChange> byId = HashMap.newHashMap(changes.size());
    changes.forEach(c -> byId.put(c.id(), c));
    Set<UUID> updated = HashSet.newHashSet(changes.size());
    try (PreparedStatement statement = connection.prepareStatement(UPDATE_INCIDENTS)) {
      statement.setObject(1, OffsetDateTime.ofInstant(now, ZoneOffset.UTC));
      statement.setArray(2, array(connection, "uuid", changes, IncidentChange::id));
      statement.setArray(3, array(connection, "int4", changes, IncidentChange::probes));
      statement.setArray(4, array(connection, "text", changes, IncidentChange::lastError));
      statement.setArray(5, array(connection, "bool", changes, IncidentChange::closes));
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          IncidentChange change = byId.get(rs.getObject(1, UUID.class));
          change.openedAt(rs.getObject(2, OffsetDateTime.class).toInstant());
          change.announced(rs.getBoolean(3));
          updated.add(change.id());
        }
      }
    }
    for (IncidentChange c : changes) {
      if (c.closes() && !updated.contains(c.id())) {
        throw new IllegalStateException("open incident " + c.id() + " not found");
      }
    }
  }

  @Override
  public void write(Connection connection, RecordingPlan plan) throws SQLException {
    List<IncidentChange> opened = plan.opened();
    List<ServiceRun> last = plan.lastPerService();
    List<RecordingPlan.Accepted> history = plan.accepted();
    List<AlertEvent> events = plan.events();
    try (PreparedStatement s = connection.prepareStatement(WRITE)) {
      s.setObject(1, OffsetDateTime.ofInstant(plan.now(), ZoneOffset.UTC));
      s.setArray(2, array(connection, "uuid", opened, IncidentChange::id));
      s.setArray(3, array(connection, "text", opened, IncidentChange::service));
      s.setArray(4, array(connection, "text", opened, IncidentChange::firstError));
      s.setArray(5, array(connection, "text", opened, IncidentChange::lastError));
      s.setArray(6, array(connection, "int4", opened, IncidentChange::probes));
      s.setArray(7, array(connection, "bool", opened, IncidentChange::announced));
      s.setArray(8, array(connection, "bool", opened, IncidentChange::closes));
      s.setArray(9, array(connection, "text", opened, IncidentChange::heldReason));
      s.setArray(10, array(connection, "text", opened, IncidentChange::notBeforeText));
      s.setArray(11, array(connection, "text", last, l -> l.result().service()));
      s.setArray(12, array(connection, "int4", last, l -> l.state().failures()));
      s.setArray(13, array(connection, "int4", last, l -> l.state().successes()));
      s.setArray(14, array(connection, "int4", last, l -> l.state().failuresBeforeSuccesses()));
      s.setArray(15, array(connection, "uuid", last, l -> l.state().openIncident()));
      s.setArray(16, array(connection, "text", last, l -> Timestamps.text(l.startedAt())));
      s.setArray(17, array(connection, "text", last, ServiceRun::lastError));
      s.setArray(18, array(connection, "int8", last, ServiceRun::order));
      s.setArray(19, array(connection, "text", last, l -> Timestamps.text(l.pushedStartedAt())));
      s.setArray(20, array(connection, "text", last, l -> l.status().name()));
      s.setArray(21, array(connection, "int8", last, l -> l.result().latencyMs()));
      s.setArray(22, array(connection, "int4", last, l -> l.result().httpStatus()));
      s.setArray(23, array(connection, "text", last, ServiceRun::healthError));
      s.setArray(24, array(connection, "text", last, l -> l.result().source().column()));
      s.setArray(25, array(connection, "bool", last, ServiceRun::statusChanged));
      s.setArray(26, array(connection, "text", history, a -> a.result().service()));
      s.setArray(27, array(connection, "text", history, a -> a.result().status().name()));
      s.setArray(28, array(connection, "text", history, a -> Timestamps.text(a.startedAt())));
      s.setArray(29, array(connection, "int8", history, a -> a.result().latencyMs()));
      s.setArray(30, array(connection, "int4", history, a -> a.result().httpStatus()));
      s.setArray(31, array(connection, "text", history, a -> a.result().error()));
      s.setArray(32, array(connection, "text", history, a -> a.result().source().column()));
      s.setArray(33, array(connection, "text", history, a -> a.result().location()));
      s.setArray(
          34, array(connection, "bool", history, a -> plan.inMaintenance(a.result().service())));
      s.setArray(35, array(connection, "uuid", events, AlertEvent::eventId));
      s.setArray(36, array(connection, "text", events, AlertEvent::service));
      s.setArray(37, array(connection, "text", events, e -> e.kind().name()));
      s.setArray(38, array(connection, "text", events, AlertEventJson::write));
      s.setArray(39, array(connection, "uuid", events, AlertEvent::incidentId));
      s.setArray(40, array(connection, "int4", events, AlertEvent::schemaVersion));
      s.setArray(41, connection.createArrayOf("text", plan.eventTraces().toArray()));
      s.executeUpdate();
    }
    List<RecordingPlan.Moved> moved = plan.movedLocations();
    if (!moved.isEmpty()) {
      LocationWriter.write(connection, plan.now(), moved);
    }
  }

  static <T> Array array(
      Connection connection, String type, List<T> rows, Function<T, Object> column)
      throws SQLException {
    Object[] values = new Object[rows.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = column.apply(rows.get(i));
    }
    return connection.createArrayOf(type, values);
  }
}
