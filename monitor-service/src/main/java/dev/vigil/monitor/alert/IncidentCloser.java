package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;
import dev.vigil.kit.tracing.Tracing;
import io.opentelemetry.api.trace.Tracer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Closes a service's open incident when its target stops being watched (disabled or deleted), so no
 * incident stays open for ever without a RECOVERED.
 *
 * <p>Guarantees: runs in the caller's transaction (the target change and the closing commit or roll
 * back together); takes the same {@code alert_state} row lock as the {@link Recorder}, so it is
 * serialised with every recording of the service and its outbox row follows the service's earlier
 * rows in commit order; writes at most one RECOVERED per incident (the outbox's {@code
 * unique(incident_id, type)} holds), carrying {@link AlertEvent#resolution()} to say why, and only
 * when the incident's FAILED was written (one opened while quiet is closed without a word).
 *
 * <p>No result decides such a RECOVERED: it is written in a span of its own ({@code close}, a new
 * trace, like the {@link Announcer}'s), whose traceparent goes with the outbox row.
 */
public final class IncidentCloser {
  private final StateLock lock = new StateLock();
  private final IncidentSql sql = new IncidentSql();
  private final Tracer tracer;

  /**
   * @param tracing where the span of each RECOVERED written is started (a new trace)
   */
  public IncidentCloser(Tracing tracing) {
    this.tracer = tracing.tracer();
  }

  /**
   * Closes the open incident of {@code service}, if there is one: incident closed, counters reset,
   * a RECOVERED with {@code resolution} in the outbox.
   *
   * @return the RECOVERED written, or empty when no incident was open (nothing written) or the
   *     incident was never announced (closed, counters reset, nothing in the outbox)
   * @throws SQLException if a statement failed; the caller must roll back
   */
  public Optional<AlertEvent> closeOpen(Connection connection, String service, String resolution)
      throws SQLException {
    if (connection.getAutoCommit()) {
      throw new IllegalStateException("closing needs a transaction (auto-commit is on)");
    }
    StateLock.Held held = lock.lock(connection, List.of(service), 0);
    StateLock.Row locked = held.rows().get(service);
    if (locked == null || locked.state().openIncident() == null) {
      return Optional.empty();
    }
    AlertStateMachine.State state = locked.state();
    UUID incident = state.openIncident();
    Instant now = held.now();
    IncidentSql.Closed closed = sql.closeIncident(connection, incident, now);
    sql.resetState(connection, service, now);
    if (locked.hasChildren()) {
      Dependencies.release(connection, List.of(service), now);
    }
    if (!closed.announced()) {
      return Optional.empty();
    }
    AlertEvent event =
        AlertEvent.recovered(
                UUID.randomUUID(),
                incident,
                service,
                now,
                state.successes() == 0 ? state.failures() : state.failuresBeforeSuccesses(),
                locked.lastError(),
                closed.openedAt())
            .withResolution(resolution);
    // Closed without a result (disabled or deleted target): a trace of its own.
    sql.insertOutbox(
        connection,
        event,
        tracer.spanBuilder("close").setAttribute("vigil.resolution", resolution));
    return Optional.of(event);
  }
}
