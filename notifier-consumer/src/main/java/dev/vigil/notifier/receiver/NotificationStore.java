package dev.vigil.notifier.receiver;

import dev.vigil.contract.AlertEvent;
import dev.vigil.notifier.internal.Database;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

/**
 * The receiver's de-duplication: each webhook-id is stored once; a repeat with the same body is
 * acknowledged again, a repeat with a different body is a conflict.
 */
final class NotificationStore {
  enum Result {
    STORED,
    DUPLICATE,
    CONFLICT
  }

  private static final String INSERT =
      """
      insert into received_webhook (webhook_id, service, kind, event_id, body)
      values (?, ?, ?, ?, ?)
      on conflict (webhook_id) do nothing
      """;

  private static final String SAME_BODY =
      "select body::jsonb = ?::jsonb from received_webhook where webhook_id = ?";

  private final Database database;

  NotificationStore(Database database) {
    this.database = database;
  }

  /** Stores and commits before returning, so a 2xx is only ever sent for a durable row. */
  Result store(String webhookId, AlertEvent event, String body) {
    return database.inTransaction(
        "storing webhook " + webhookId,
        c -> {
          try (PreparedStatement insert = c.prepareStatement(INSERT)) {
            insert.setString(1, webhookId);
            insert.setString(2, event.service());
            insert.setString(3, event.kind().name());
            insert.setObject(4, event.eventId());
            insert.setString(5, body);
            if (insert.executeUpdate() == 1) {
              return Result.STORED;
            }
          }
          try (PreparedStatement same = c.prepareStatement(SAME_BODY)) {
            same.setString(1, body);
            same.setString(2, webhookId);
            try (ResultSet rows = same.executeQuery()) {
              return rows.next() && rows.getBoolean(1) ? Result.DUPLICATE : Result.CONFLICT;
            }
          }
        });
  }
}
