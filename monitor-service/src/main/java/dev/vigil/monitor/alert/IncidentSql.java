package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.OutboxContract;
import dev.vigil.kit.tracing.TraceParent;
import dev.vigil.kit.tracing.Tracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;

/**
 * The single-row statements of the writers that act without a result: the {@link IncidentCloser}
 * (close an incident, reset the counters) and the {@link Announcer} (an outbox row). Results are
 * written by the {@link PlanWriter} only. The caller holds the service's {@code alert_state} row
 * lock.
 */
final class IncidentSql {

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
          OutboxContract.COLUMN_CREATED_AT,
          OutboxContract.COLUMN_TRACEPARENT);

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
   * Closes the incident without a result (its probe count stays) and returns when it was opened and
   * whether it was announced.
   *
   * @throws IllegalStateException if it was not open
   */
  Closed closeIncident(Connection connection, UUID id, Instant now) throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            """
            update incidents set closed_at = ?
             where id = ? and closed_at is null
            returning opened_at, announced_at is not null
            """)) {
      statement.setTimestamp(1, Timestamp.from(now));
      statement.setObject(2, id);
      try (ResultSet rs = statement.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("open incident " + id + " not found");
        }
        return new Closed(rs.getTimestamp(1).toInstant(), rs.getBoolean(2));
      }
    }
  }

  /**
   * Writes {@code event}'s outbox row in a span of its own, a new trace, for an event no probe or
   * pushed result decided (the announcer's deferred FAILED, a RECOVERED for a disabled target):
   * {@code span} names it and may carry attributes; the service and kind are added here.
   */
  void insertOutbox(Connection connection, AlertEvent event, SpanBuilder span) throws SQLException {
    Span started =
        span.setNoParent()
            .setAttribute("vigil.service", event.service())
            .setAttribute("vigil.kind", event.kind().name())
            .startSpan();
    try {
      insertOutbox(connection, event, Tracing.traceParent(started).orElse(null));
    } finally {
      started.end();
    }
  }

  /**
   * @param trace the span that wrote the event (the announcer's), or null: the row's traceparent
   */
  void insertOutbox(Connection connection, AlertEvent event, TraceParent trace)
      throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            "insert into "
                + OutboxContract.TABLE
                + " ("
                + OUTBOX_COLUMNS
                + ") values (?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?)")) {
      statement.setObject(1, event.eventId());
      statement.setString(2, OutboxContract.AGGREGATE_TYPE);
      statement.setString(3, event.service());
      statement.setString(4, event.kind().name());
      statement.setString(5, AlertEventJson.write(event));
      statement.setObject(6, event.incidentId());
      statement.setInt(7, event.schemaVersion());
      statement.setTimestamp(8, Timestamp.from(event.occurredAt()));
      statement.setString(9, trace == null ? null : trace.toString());
      statement.executeUpdate();
    }
  }
}
