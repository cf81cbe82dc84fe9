package dev.vigil.monitor.alert;

import dev.vigil.kit.db.Database;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Acknowledges an open incident: who, and when by the database's clock. An acknowledged incident
 * gets no more REMINDERs. Takes the service's {@code alert_state} row lock like every writer of an
 * incident, so the {@link Announcer} never writes a reminder after an acknowledgement committed.
 * Acknowledging again keeps the first acknowledgement.
 */
public final class Acknowledger {

  /** The outcome: the incident's service and its (first) acknowledgement. */
  public record Acknowledgement(UUID incidentId, String service, String by, Instant at) {}

  /** Why an incident cannot be acknowledged. */
  public static final class ClosedIncidentException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ClosedIncidentException(UUID incident) {
      super("incident " + incident + " is closed");
    }
  }

  private final DataSource dataSource;

  public Acknowledger(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Acknowledges {@code incident} as {@code who}.
   *
   * @return the acknowledgement (the earlier one if it was acknowledged already), or empty when
   *     there is no such incident
   * @throws ClosedIncidentException if it is closed (nothing written)
   */
  public Optional<Acknowledgement> acknowledge(UUID incident, String who) {
    return Database.inTransaction(
        dataSource,
        "acknowledging incident " + incident,
        connection -> {
          String service;
          try (PreparedStatement statement =
              connection.prepareStatement("select service from incidents where id = ?")) {
            statement.setObject(1, incident);
            try (ResultSet rs = statement.executeQuery()) {
              if (!rs.next()) {
                return Optional.<Acknowledgement>empty();
              }
              service = rs.getString(1);
            }
          }
          try (PreparedStatement statement =
              connection.prepareStatement(
                  "select 1 from alert_state where service = ? for update")) {
            statement.setString(1, service);
            statement.executeQuery().close();
          }
          try (PreparedStatement statement =
              connection.prepareStatement(
                  """
                  update incidents
                     set acknowledged_by = coalesce(acknowledged_by, ?),
                         acknowledged_at = coalesce(acknowledged_at, clock_timestamp())
                   where id = ? and closed_at is null
                  returning acknowledged_by, acknowledged_at
                  """)) {
            statement.setString(1, who);
            statement.setObject(2, incident);
            try (ResultSet rs = statement.executeQuery()) {
              if (!rs.next()) {
                throw new ClosedIncidentException(incident);
              }
              return Optional.of(
                  new Acknowledgement(
                      incident, service, rs.getString(1), rs.getTimestamp(2).toInstant()));
            }
          }
        });
  }
}
