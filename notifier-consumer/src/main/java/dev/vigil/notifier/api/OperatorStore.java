package dev.vigil.notifier.api;

import dev.vigil.kit.db.Database;
import dev.vigil.notifier.internal.ServiceLocks;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Operator reads and actions on receipts. Replay keeps the event id and resets attempts; skip
 * releases the service's next receipt. Both are recorded with who and when.
 */
final class OperatorStore {
  private static final String SERVICES =
      """
      select service, channel,
             count(*) filter (where status = 'PENDING') as pending,
             count(*) filter (where status = 'DEAD') as dead,
             min(received_at) filter (where status = 'PENDING') as oldest_pending
        from notifier_receipt where status in ('PENDING', 'DEAD')
       group by service, channel order by service, channel
      """;

  private static final String RECEIPTS =
      """
      select event_id, service, channel, kind, status, head, attempts, last_status, last_error,
             received_at, available_at, dead_at
        from notifier_receipt
       where status = ? and (?::text is null or service = ?) and (?::text is null or channel = ?)
       order by seq limit 500
      """;

  private static final String REPLAY =
      """
      update notifier_receipt
         set status = 'PENDING', attempts = 0, available_at = now(), claim_token = null,
             dead_at = null, replayed_by = ?, replayed_at = now()
       where event_id = ? and (?::text is null or channel = ?) and status = 'DEAD'
      returning service
      """;

  private static final String SKIP =
      """
      update notifier_receipt
         set status = 'SKIPPED', head = false, claim_token = null, skipped_by = ?, skipped_at = now()
       where event_id = ? and (?::text is null or channel = ?)
         and (status = 'DEAD' or (status = 'PENDING' and (claim_token is null or available_at <= now())))
      returning service
      """;

  private static final String RECORD =
      "insert into notifier_operator_action (event_id, action, operator) values (?, ?, ?)";

  private final Database database;

  OperatorStore(Database database) {
    this.database = database;
  }

  List<Map<String, Object>> services() {
    return database.inTransaction("listing services", c -> rows(c.prepareStatement(SERVICES)));
  }

  List<Map<String, Object>> receipts(String status, String service, String channel) {
    return database.inTransaction(
        "listing receipts",
        c -> {
          PreparedStatement statement = c.prepareStatement(RECEIPTS);
          statement.setString(1, status);
          statement.setString(2, service);
          statement.setString(3, service);
          statement.setString(4, channel);
          statement.setString(5, channel);
          return rows(statement);
        });
  }

  /**
   * Replays the event's dead deliveries ({@code channel} null: on every channel); false when none
   * is dead (nothing to replay).
   */
  boolean replay(UUID eventId, String channel, String operator) {
    return act(REPLAY, "REPLAY", eventId, channel, operator, false);
  }

  /**
   * Skips the event's unfinished deliveries; false when all are delivered, skipped or in flight.
   */
  boolean skip(UUID eventId, String channel, String operator) {
    return act(SKIP, "SKIP", eventId, channel, operator, true);
  }

  private boolean act(
      String sql, String action, UUID eventId, String channel, String operator, boolean advance) {
    return database.inTransaction(
        action + " " + eventId,
        c -> {
          String service = serviceOf(c, eventId);
          if (service == null) {
            return false;
          }
          ServiceLocks.lock(c, Set.of(service));
          try (PreparedStatement statement = c.prepareStatement(sql)) {
            statement.setString(1, operator);
            statement.setObject(2, eventId);
            statement.setString(3, channel);
            statement.setString(4, channel);
            try (ResultSet rows = statement.executeQuery()) {
              if (!rows.next()) {
                return false;
              }
            }
          }
          if (advance) {
            ServiceLocks.promoteHeads(c, Set.of(service));
          }
          try (PreparedStatement statement = c.prepareStatement(RECORD)) {
            statement.setObject(1, eventId);
            statement.setString(2, action);
            statement.setString(3, operator);
            statement.executeUpdate();
          }
          return true;
        });
  }

  private static String serviceOf(java.sql.Connection c, UUID eventId) throws SQLException {
    try (PreparedStatement statement =
        c.prepareStatement("select service from notifier_receipt where event_id = ? limit 1")) {
      statement.setObject(1, eventId);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? rows.getString(1) : null;
      }
    }
  }

  private static List<Map<String, Object>> rows(PreparedStatement statement) throws SQLException {
    try (statement;
        ResultSet rows = statement.executeQuery()) {
      List<Map<String, Object>> result = new ArrayList<>();
      int columns = rows.getMetaData().getColumnCount();
      while (rows.next()) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 1; i <= columns; i++) {
          Object value = rows.getObject(i);
          row.put(
              rows.getMetaData().getColumnLabel(i),
              value instanceof java.sql.Timestamp t ? t.toInstant().toString() : value);
        }
        result.add(row);
      }
      return result;
    }
  }
}
