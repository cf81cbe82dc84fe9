package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.OutboxContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;

/**
 * The single-service statements: the lock and incident closing {@link IncidentCloser} uses, and the
 * outbox insert of the {@link Announcer} and the closer. Results are recorded by {@link BatchSql}.
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

  private static Instant instant(Timestamp timestamp) {
    return timestamp == null ? null : timestamp.toInstant();
  }
}
