package dev.vigil.notifier.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;
import java.util.TreeSet;

/**
 * Transaction-scoped advisory locks per service. Everything that changes which receipt is a
 * service's head of line (a new receipt, a delivery, a skip) takes the lock first, so two such
 * transactions of one service never both miss each other's rows. Keys are taken in ascending order,
 * so two transactions locking several services cannot deadlock.
 */
public final class ServiceLocks {
  private static final int NAMESPACE = 0x56_49_47_4c; // "VIGL"

  private static final String LOCK =
      "select count(pg_advisory_xact_lock(?, k)) from unnest(?::int[]) as t(k)";

  private ServiceLocks() {}

  /** Locks every service in {@code services} until the current transaction ends. */
  public static void lock(Connection connection, Collection<String> services) throws SQLException {
    if (services.isEmpty()) {
      return;
    }
    TreeSet<Integer> keys = new TreeSet<>();
    for (String service : services) {
      keys.add(service.hashCode());
    }
    try (PreparedStatement statement = connection.prepareStatement(LOCK)) {
      statement.setInt(1, NAMESPACE);
      statement.setArray(2, connection.createArrayOf("int4", keys.toArray()));
      statement.executeQuery().close();
    }
  }

  /**
   * Marks the oldest unfinished receipt of each (service, channel) as its head. Call with the
   * services' locks held.
   */
  public static int promoteHeads(Connection connection, Collection<String> services)
      throws SQLException {
    if (services.isEmpty()) {
      return 0;
    }
    try (PreparedStatement statement = connection.prepareStatement(PROMOTE_HEADS)) {
      statement.setArray(1, connection.createArrayOf("text", services.toArray()));
      return statement.executeUpdate();
    }
  }

  private static final String PROMOTE_HEADS =
      """
      update notifier_receipt r set head = true
      from (select distinct on (service, channel) event_id, channel
              from notifier_receipt
             where service = any(?) and status in ('PENDING', 'DEAD')
             order by service, channel, seq) h
      where r.event_id = h.event_id and r.channel = h.channel and not r.head
      """;
}
