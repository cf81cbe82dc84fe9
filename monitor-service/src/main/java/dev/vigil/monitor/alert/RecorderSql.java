package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.OutboxContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.UUID;

/**
 * The statements of one recording of one result, in the order {@link Recorder} runs them (a batch
 * of results is recorded by {@link BatchSql}).
 */
final class RecorderSql {

  /**
   * The locked state row plus the target's thresholds, the database's time taken after the lock was
   * granted, and a new {@code result_order} number when one was asked for (else null).
   */
  record Locked(
      AlertStateMachine.State state,
      Long lastResultSeq,
      Instant lastPushedStartedAt,
      String lastError,
      int failureThreshold,
      int recoveryThreshold,
      Instant now,
      Long newOrder) {}

  // The thresholds come from the statement's snapshot of targets: a concurrent threshold change
  // applies from the next result on. Incident rows are never read here; closeIncident reads the
  // opening time from the row it updates, which is always the latest committed version.
  //
  // The locking query is a materialized CTE so that clock_timestamp() and nextval() in the outer
  // select run after the row lock was granted: the time and the number of a result are those of
  // the moment it holds the service, which makes both increase in commit order per service.
  private static final String LOCK =
      """
      with locked as materialized (
          select a.consecutive_failures, a.consecutive_successes, a.failures_before_successes,
                 a.open_incident_id, a.last_result_seq, a.last_pushed_started_at, a.last_error,
                 t.failure_threshold, t.recovery_threshold
            from alert_state a
            join targets t on t.name = a.service
           where a.service = ?
             for update of a
      )
      select locked.*, clock_timestamp(),
             case when ? then nextval('result_order') end
        from locked
      """;

  // One round trip for the writes every accepted result makes. A push target with a heartbeat gets
  // its deadline moved to one heartbeat after this result (the database's time).
  private static final String WRITE_RESULT =
      """
      with state as (
          update alert_state
             set consecutive_failures = ?, consecutive_successes = ?,
                 failures_before_successes = ?, open_incident_id = ?,
                 last_started_at = ?, last_error = ?, updated_at = ?,
                 last_result_seq = ?, last_pushed_started_at = ?
           where service = ?
      ), deadline as (
          update probe_schedule s
             set next_due_at = ?::timestamptz + make_interval(secs => t.heartbeat_ms / 1000.0)
            from targets t
           where s.target = ? and t.name = s.target and t.kind = 'push'
             and t.heartbeat_ms is not null
      ), health as (
          insert into health_status
                 (service, status, since, checked_at, started_at, latency_ms, http_status, error,
                  source)
          values (?, ?, ?, ?, ?, ?, ?, ?, ?)
          on conflict (service) do update
             set since = case when health_status.status = excluded.status
                              then health_status.since else excluded.since end,
                 status = excluded.status, checked_at = excluded.checked_at,
                 started_at = excluded.started_at, latency_ms = excluded.latency_ms,
                 http_status = excluded.http_status, error = excluded.error,
                 source = excluded.source
      )
      insert into check_history
             (service, status, recorded_at, started_at, latency_ms, http_status, error, source)
      values (?, ?, ?, ?, ?, ?, ?, ?)
      """;

  /** Locks the service's state row; {@code newOrder}: also take a {@code result_order} number. */
  Locked lockState(Connection connection, String service, boolean newOrder) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(LOCK)) {
      statement.setString(1, service);
      statement.setBoolean(2, newOrder);
      try (ResultSet rs = statement.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return new Locked(
            new AlertStateMachine.State(
                rs.getInt(1), rs.getInt(2), rs.getInt(3), rs.getObject(4, UUID.class)),
            rs.getObject(5, Long.class),
            instant(rs.getTimestamp(6)),
            rs.getString(7),
            rs.getInt(8),
            rs.getInt(9),
            rs.getTimestamp(10).toInstant(),
            rs.getObject(11, Long.class));
      }
    }
  }

  /** Resets the counters and forgets the incident (it was closed without a recovery). */
  void resetState(Connection connection, String service, Instant now) throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            """
            update alert_state
               set consecutive_failures = 0, consecutive_successes = 0,
                   failures_before_successes = 0, open_incident_id = null, updated_at = ?
             where service = ?
            """)) {
      statement.setTimestamp(1, Timestamp.from(now));
      statement.setString(2, service);
      statement.executeUpdate();
    }
  }

  /** Opens an incident; {@code announced}: its FAILED is written now (else it is deferred). */
  void openIncident(
      Connection connection,
      UUID id,
      ProbeResult result,
      Instant now,
      int failures,
      boolean announced)
      throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            """
            insert into incidents (id, service, opened_at, first_error, last_error, probe_count,
                                   announced_at, last_announced_at)
            values (?, ?, ?, ?, ?, ?, ?, ?)
            """)) {
      statement.setObject(1, id);
      statement.setString(2, result.service());
      statement.setTimestamp(3, Timestamp.from(now));
      statement.setString(4, result.error());
      statement.setString(5, result.error());
      statement.setInt(6, failures);
      statement.setTimestamp(7, announced ? Timestamp.from(now) : null);
      statement.setTimestamp(8, announced ? Timestamp.from(now) : null);
      statement.executeUpdate();
    }
  }

  /** A closed incident: when it was opened, and whether its FAILED was written. */
  record Closed(Instant openedAt, boolean announced) {}

  /**
   * Closes the incident and returns when it was opened and whether it was announced; {@code
   * byResult}: a recorded result closed it (and is counted in probe_count).
   */
  Closed closeIncident(Connection connection, UUID id, Instant now, boolean byResult)
      throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            """
            update incidents set closed_at = ?, probe_count = probe_count + ?
             where id = ? and closed_at is null
            returning opened_at, announced_at is not null
            """)) {
      statement.setTimestamp(1, Timestamp.from(now));
      statement.setInt(2, byResult ? 1 : 0);
      statement.setObject(3, id);
      try (ResultSet rs = statement.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("open incident " + id + " not found");
        }
        return new Closed(rs.getTimestamp(1).toInstant(), rs.getBoolean(2));
      }
    }
  }

  void countIncidentProbe(Connection connection, UUID id, String error) throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            """
            update incidents
               set probe_count = probe_count + 1, last_error = coalesce(?, last_error)
             where id = ?
            """)) {
      statement.setString(1, error);
      statement.setObject(2, id);
      statement.executeUpdate();
    }
  }

  /** What an accepted result writes besides the counters. */
  record Written(
      ProbeResult result, Instant startedAt, long order, Instant pushedStartedAt, Instant now) {}

  /**
   * Updates the state row, moves a push target's heartbeat deadline, upserts health_status and
   * appends check_history, in one statement.
   */
  void writeResult(
      Connection connection, Written written, AlertStateMachine.State next, String lastError)
      throws SQLException {
    ProbeResult result = written.result();
    try (PreparedStatement statement = connection.prepareStatement(WRITE_RESULT)) {
      Timestamp recordedAt = Timestamp.from(written.now());
      statement.setInt(1, next.failures());
      statement.setInt(2, next.successes());
      statement.setInt(3, next.failuresBeforeSuccesses());
      statement.setObject(4, next.openIncident());
      statement.setTimestamp(5, Timestamp.from(written.startedAt()));
      statement.setString(6, lastError);
      statement.setTimestamp(7, recordedAt);
      statement.setLong(8, written.order());
      statement.setTimestamp(
          9, written.pushedStartedAt() == null ? null : Timestamp.from(written.pushedStartedAt()));
      statement.setString(10, result.service());
      statement.setTimestamp(11, recordedAt);
      statement.setString(12, result.service());
      statement.setString(13, result.service());
      statement.setString(14, result.status().name());
      statement.setTimestamp(15, recordedAt);
      statement.setTimestamp(16, recordedAt);
      bindResult(statement, 17, written);
      statement.setString(22, result.service());
      statement.setString(23, result.status().name());
      statement.setTimestamp(24, recordedAt);
      bindResult(statement, 25, written);
      statement.executeUpdate();
    }
  }

  /** The outbox columns every writer of outbox rows fills, in this order. */
  static final String OUTBOX_COLUMNS =
      String.join(
          ", ",
          OutboxContract.COLUMN_ID,
          OutboxContract.COLUMN_AGGREGATE_TYPE,
          OutboxContract.COLUMN_AGGREGATE_ID,
          OutboxContract.COLUMN_TYPE,
          OutboxContract.COLUMN_PAYLOAD,
          OutboxContract.COLUMN_INCIDENT_ID,
          OutboxContract.COLUMN_SCHEMA_VERSION,
          OutboxContract.COLUMN_CREATED_AT);

  void insertOutbox(Connection connection, AlertEvent event) throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            "insert into "
                + OutboxContract.TABLE
                + " ("
                + OUTBOX_COLUMNS
                + ") values (?, ?, ?, ?, ?::jsonb, ?, ?, ?)")) {
      statement.setObject(1, event.eventId());
      statement.setString(2, OutboxContract.AGGREGATE_TYPE);
      statement.setString(3, event.service());
      statement.setString(4, event.kind().name());
      statement.setString(5, AlertEventJson.write(event));
      statement.setObject(6, event.incidentId());
      statement.setInt(7, event.schemaVersion());
      statement.setTimestamp(8, Timestamp.from(event.occurredAt()));
      statement.executeUpdate();
    }
  }

  /** Binds started_at, latency_ms, http_status, error, source from {@code index} on. */
  private static void bindResult(PreparedStatement statement, int index, Written written)
      throws SQLException {
    ProbeResult result = written.result();
    statement.setTimestamp(index, Timestamp.from(written.startedAt()));
    if (result.latencyMs() == null) {
      statement.setNull(index + 1, Types.BIGINT);
    } else {
      statement.setLong(index + 1, result.latencyMs());
    }
    if (result.httpStatus() == null) {
      statement.setNull(index + 2, Types.INTEGER);
    } else {
      statement.setInt(index + 2, result.httpStatus());
    }
    statement.setString(index + 3, result.error());
    statement.setString(index + 4, result.source().column());
  }

  private static Instant instant(Timestamp timestamp) {
    return timestamp == null ? null : timestamp.toInstant();
  }
}
