package dev.vigil.connect;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.harness.junit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import org.flywaydb.core.Flyway;

/** The outbox as the monitor writes it: its own migrations, its insert, one transaction a call. */
final class Outbox {
  private static final String INSERT =
      """
      insert into outbox (id, aggregatetype, aggregateid, type, payload, incident_id,
                          schema_version, traceparent)
      values (?, 'service', ?, ?, ?::jsonb, ?, ?, ?)
      """;

  private Outbox() {}

  /** Creates the outbox table the way production does: the monitor's migrations. */
  static void migrate(TestDatabase db) {
    Flyway.configure()
        .dataSource(db.jdbcUrl(), db.user(), db.password())
        .locations("classpath:db/monitor")
        .table("flyway_monitor_history")
        .load()
        .migrate();
  }

  /** Deletes the rows of {@code events}, as the monitor's retention does with old rows. */
  static void delete(Connection c, List<AlertEvent> events) throws SQLException {
    try (PreparedStatement delete = c.prepareStatement("delete from outbox where id = any (?)")) {
      delete.setArray(
          1, c.createArrayOf("uuid", events.stream().map(AlertEvent::eventId).toArray()));
      delete.executeUpdate();
    }
  }

  /**
   * A traceparent the monitor could have written for {@code event}: trace id and span id from the
   * event id, so both publishers' headers can be compared with a value that differs per row.
   */
  static String traceparent(AlertEvent event) {
    String hex = event.eventId().toString().replace("-", "");
    return "00-" + hex + "-" + hex.substring(16) + "-01";
  }

  /** Inserts {@code events} as outbox rows in one transaction, in list order. */
  static void insertInOneTransaction(Connection c, List<AlertEvent> events) throws SQLException {
    c.setAutoCommit(false);
    try (PreparedStatement insert = c.prepareStatement(INSERT)) {
      for (AlertEvent event : events) {
        insert.setObject(1, event.eventId());
        insert.setString(2, event.service());
        insert.setString(3, event.kind().name());
        insert.setString(4, AlertEventJson.write(event));
        insert.setObject(5, event.incidentId());
        insert.setInt(6, event.schemaVersion());
        insert.setString(7, traceparent(event));
        insert.addBatch();
      }
      insert.executeBatch();
      c.commit();
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }
}
