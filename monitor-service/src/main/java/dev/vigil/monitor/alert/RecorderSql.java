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

/** The statements of one recording, in the order {@link Recorder} runs them. */
final class RecorderSql {

  /** The locked state row plus the target's thresholds. */
  record Locked(
      AlertStateMachine.State state,
      Instant lastStartedAt,
      String lastError,
      int failureThreshold,
      int recoveryThreshold) {}

  // The thresholds come from the statement's snapshot of targets: a concurrent threshold change
  // applies from the next result on. Incident rows are never read here; closeIncident reads the
  // opening time from the row it updates, which is always the latest committed version.
  private static final String LOCK =
      """
      select a.consecutive_failures, a.consecutive_successes, a.failures_before_successes,
             a.open_incident_id, a.last_started_at, a.last_error,
             t.failure_threshold, t.recovery_threshold
        from alert_state a
        join targets t on t.name = a.service
       where a.service = ?
         for update of a
      """;

  // One round trip for the three writes every accepted result makes.
  private static final String WRITE_RESULT =
      """
      with state as (
          update alert_state
             set consecutive_failures = ?, consecutive_successes = ?,
                 failures_before_successes = ?, open_incident_id = ?,
                 last_started_at = ?, last_error = ?, updated_at = ?
           where service = ?
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

  Locked lockState(Connection connection, String service) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(LOCK)) {
      statement.setString(1, service);
      try (ResultSet rs = statement.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return new Locked(
            new AlertStateMachine.State(
                rs.getInt(1), rs.getInt(2), rs.getInt(3), rs.getObject(4, UUID.class)),
            instant(rs.getTimestamp(5)),
            rs.getString(6),
            rs.getInt(7),
            rs.getInt(8));
      }
    }
  }

  void openIncident(Connection connection, UUID id, ProbeResult result, Instant now, int failures)
      throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            """
            insert into incidents (id, service, opened_at, first_error, last_error, probe_count)
            values (?, ?, ?, ?, ?, ?)
            """)) {
      statement.setObject(1, id);
      statement.setString(2, result.service());
      statement.setTimestamp(3, Timestamp.from(now));
      statement.setString(4, result.error());
      statement.setString(5, result.error());
      statement.setInt(6, failures);
      statement.executeUpdate();
    }
  }

  /** Closes the incident and returns when it was opened. */
  Instant closeIncident(Connection connection, UUID id, Instant now) throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            """
            update incidents set closed_at = ?, probe_count = probe_count + 1
             where id = ? and closed_at is null
            returning opened_at
            """)) {
      statement.setTimestamp(1, Timestamp.from(now));
      statement.setObject(2, id);
      try (ResultSet rs = statement.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("open incident " + id + " not found");
        }
        return rs.getTimestamp(1).toInstant();
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

  /** Updates the state row, upserts health_status and appends check_history, in one statement. */
  void writeResult(
      Connection connection,
      ProbeResult result,
      AlertStateMachine.State next,
      String lastError,
      Instant now)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(WRITE_RESULT)) {
      Timestamp recordedAt = Timestamp.from(now);
      statement.setInt(1, next.failures());
      statement.setInt(2, next.successes());
      statement.setInt(3, next.failuresBeforeSuccesses());
      statement.setObject(4, next.openIncident());
      statement.setTimestamp(5, Timestamp.from(result.startedAt()));
      statement.setString(6, lastError);
      statement.setTimestamp(7, recordedAt);
      statement.setString(8, result.service());
      statement.setString(9, result.service());
      statement.setString(10, result.status().name());
      statement.setTimestamp(11, recordedAt);
      statement.setTimestamp(12, recordedAt);
      bindResult(statement, 13, result);
      statement.setString(18, result.service());
      statement.setString(19, result.status().name());
      statement.setTimestamp(20, recordedAt);
      bindResult(statement, 21, result);
      statement.executeUpdate();
    }
  }

  void insertOutbox(Connection connection, AlertEvent event) throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            "insert into "
                + OutboxContract.TABLE
                + " ("
                + String.join(
                    ", ",
                    OutboxContract.COLUMN_ID,
                    OutboxContract.COLUMN_AGGREGATE_TYPE,
                    OutboxContract.COLUMN_AGGREGATE_ID,
                    OutboxContract.COLUMN_TYPE,
                    OutboxContract.COLUMN_PAYLOAD,
                    OutboxContract.COLUMN_INCIDENT_ID,
                    OutboxContract.COLUMN_SCHEMA_VERSION,
                    OutboxContract.COLUMN_CREATED_AT)
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
  private static void bindResult(PreparedStatement statement, int index, ProbeResult result)
      throws SQLException {
    statement.setTimestamp(index, Timestamp.from(result.startedAt()));
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
