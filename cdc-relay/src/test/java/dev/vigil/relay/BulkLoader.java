package dev.vigil.relay;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.postgresql.PGConnection;

/**
 * Writes outbox rows in large transactions, the way a bulk writer or an operator re-inserting rows
 * would: with {@code COPY} (PostgreSQL writes up to a page of rows in one multi-insert WAL record,
 * so many change events share one LSN) or with one multi-row {@code INSERT … SELECT}. One loader
 * writes from one connection, so its transactions commit in the order they are written, and each
 * service's {@code consecutiveFailures} counts up without gaps in commit order.
 */
final class BulkLoader {
  /** How a transaction's rows are written. */
  enum Method {
    COPY,
    INSERT_SELECT
  }

  private static final String COPY =
      """
      copy outbox (id, aggregatetype, aggregateid, type, payload, incident_id, schema_version)
      from stdin with (format csv)
      """;
  private static final String INSERT_SELECT =
      """
      insert into outbox (id, aggregatetype, aggregateid, type, payload, incident_id,
                          schema_version)
      select id::uuid, 'service', service, 'FAILED', payload::jsonb, incident::uuid, 1
      from unnest(?::text[], ?::text[], ?::text[], ?::text[]) as t(id, service, payload, incident)
      """;

  /** Makes rows a few hundred bytes, like real alerts with an error: ~17 rows per WAL record. */
  private static final String PADDING = "connection refused by upstream ".repeat(10);

  private final String servicePrefix;
  private final int services;
  private final Map<String, Integer> counters = new HashMap<>();

  BulkLoader(String servicePrefix, int services) {
    this.servicePrefix = servicePrefix;
    this.services = services;
  }

  /**
   * Commits {@code rows} outbox rows in one transaction on {@code c}.
   *
   * @return the events written, in the order written
   */
  List<AlertEvent> commit(Connection c, Method method, int rows) throws SQLException {
    List<AlertEvent> events = new ArrayList<>(rows);
    Map<String, Integer> next = new HashMap<>(counters);
    for (int i = 0; i < rows; i++) {
      String service = servicePrefix + (i % services);
      int n = next.merge(service, 1, Integer::sum);
      events.add(
          AlertEvent.failed(
              UUID.randomUUID(), UUID.randomUUID(), service, Instant.now(), n, PADDING + n));
    }
    c.setAutoCommit(false);
    try {
      if (method == Method.COPY) {
        copy(c, events);
      } else {
        insertSelect(c, events);
      }
      c.commit();
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    }
    counters.putAll(next);
    return events;
  }

  private static void copy(Connection c, List<AlertEvent> events) throws SQLException {
    StringBuilder csv = new StringBuilder();
    for (AlertEvent e : events) {
      csv.append(e.eventId())
          .append(",service,")
          .append(e.service())
          .append(",FAILED,\"")
          .append(AlertEventJson.write(e).replace("\"", "\"\""))
          .append("\",")
          .append(e.incidentId())
          .append(",1\n");
    }
    try {
      c.unwrap(PGConnection.class).getCopyAPI().copyIn(COPY, new StringReader(csv.toString()));
    } catch (IOException e) {
      throw new SQLException("copy into outbox failed", e);
    }
  }

  private static void insertSelect(Connection c, List<AlertEvent> events) throws SQLException {
    try (PreparedStatement insert = c.prepareStatement(INSERT_SELECT)) {
      insert.setArray(1, c.createArrayOf("text", column(events, e -> e.eventId().toString())));
      insert.setArray(2, c.createArrayOf("text", column(events, AlertEvent::service)));
      insert.setArray(3, c.createArrayOf("text", column(events, AlertEventJson::write)));
      insert.setArray(4, c.createArrayOf("text", column(events, e -> e.incidentId().toString())));
      insert.executeUpdate();
    }
  }

  private static String[] column(
      List<AlertEvent> events, java.util.function.Function<AlertEvent, String> field) {
    return events.stream().map(field).toArray(String[]::new);
  }
}
