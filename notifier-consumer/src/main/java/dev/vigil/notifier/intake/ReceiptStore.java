package dev.vigil.notifier.intake;

import dev.vigil.kit.db.Database;
import dev.vigil.notifier.internal.ServiceLocks;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Stores one poll batch in one transaction: receipts ({@code on conflict (event_id) do nothing}),
 * conflicts (same id, different payload: both payloads kept, the receipt untouched) and rejected
 * records. A redelivered record therefore never creates a second receipt.
 */
final class ReceiptStore {
  /** What one batch changed. */
  record Stored(int inserted, int duplicates, int conflicts, int rejected) {}

  private static final String INSERT_RECEIPTS =
      """
      insert into notifier_receipt
        (event_id, service, kind, incident_id, payload, kafka_topic, kafka_partition, kafka_offset)
      select u.event_id, u.service, u.kind, u.incident_id, u.payload, u.topic, u.part, u.off
        from unnest(?::uuid[], ?::text[], ?::text[], ?::uuid[], ?::text[], ?::text[], ?::int[],
                    ?::bigint[]) with ordinality
             as u(event_id, service, kind, incident_id, payload, topic, part, off, ord)
       order by u.ord
      on conflict (event_id) do nothing
      returning event_id, service
      """;

  private static final String INSERT_CONFLICTS =
      """
      insert into notifier_conflict
        (event_id, original_payload, conflicting_payload, kafka_topic, kafka_partition,
         kafka_offset)
      select u.event_id, r.payload, u.payload, u.topic, u.part, u.off
        from unnest(?::uuid[], ?::text[], ?::text[], ?::int[], ?::bigint[])
             as u(event_id, payload, topic, part, off)
        join notifier_receipt r on r.event_id = u.event_id
       where r.payload::jsonb <> u.payload::jsonb
      on conflict (event_id, md5(conflicting_payload)) do nothing
      """;

  private static final String INSERT_REJECTED =
      """
      insert into notifier_rejected
        (kafka_topic, kafka_partition, kafka_offset, record_key, record_value, field, reason)
      values (?, ?, ?, ?, ?, ?, ?)
      on conflict (kafka_topic, kafka_partition, kafka_offset) do nothing
      """;

  private final Database database;

  ReceiptStore(Database database) {
    this.database = database;
  }

  Stored store(List<Checked.Accepted> accepted, List<Checked.Rejected> rejected) {
    return database.inTransaction(
        "storing " + accepted.size() + " receipts",
        connection -> {
          Set<String> services = new HashSet<>();
          int inserted = insertReceipts(connection, accepted, services);
          int conflicts = inserted == accepted.size() ? 0 : insertConflicts(connection, accepted);
          int parked = insertRejected(connection, rejected);
          ServiceLocks.lock(connection, services);
          ServiceLocks.promoteHeads(connection, services);
          return new Stored(inserted, accepted.size() - inserted - conflicts, conflicts, parked);
        });
  }

  private static int insertReceipts(
      Connection connection, List<Checked.Accepted> batch, Set<String> services)
      throws SQLException {
    if (batch.isEmpty()) {
      return 0;
    }
    int n = batch.size();
    UUID[] ids = new UUID[n];
    String[] svc = new String[n];
    String[] kinds = new String[n];
    UUID[] incidents = new UUID[n];
    String[] payloads = new String[n];
    String[] topics = new String[n];
    Integer[] partitions = new Integer[n];
    Long[] offsets = new Long[n];
    for (int i = 0; i < n; i++) {
      Checked.Accepted a = batch.get(i);
      ids[i] = a.event().eventId();
      svc[i] = a.event().service();
      kinds[i] = a.event().kind().name();
      incidents[i] = a.event().incidentId();
      payloads[i] = a.payload();
      topics[i] = a.topic();
      partitions[i] = a.partition();
      offsets[i] = a.offset();
    }
    try (PreparedStatement statement = connection.prepareStatement(INSERT_RECEIPTS)) {
      statement.setArray(1, connection.createArrayOf("uuid", ids));
      statement.setArray(2, connection.createArrayOf("text", svc));
      statement.setArray(3, connection.createArrayOf("text", kinds));
      statement.setArray(4, connection.createArrayOf("uuid", incidents));
      statement.setArray(5, connection.createArrayOf("text", payloads));
      statement.setArray(6, connection.createArrayOf("text", topics));
      statement.setArray(7, connection.createArrayOf("int4", partitions));
      statement.setArray(8, connection.createArrayOf("int8", offsets));
      int inserted = 0;
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          inserted++;
          services.add(rows.getString(2));
        }
      }
      return inserted;
    }
  }

  private static int insertConflicts(Connection connection, List<Checked.Accepted> batch)
      throws SQLException {
    List<Checked.Accepted> rows = new ArrayList<>(batch);
    int n = rows.size();
    UUID[] ids = new UUID[n];
    String[] payloads = new String[n];
    String[] topics = new String[n];
    Integer[] partitions = new Integer[n];
    Long[] offsets = new Long[n];
    for (int i = 0; i < n; i++) {
      Checked.Accepted a = rows.get(i);
      ids[i] = a.event().eventId();
      payloads[i] = a.payload();
      topics[i] = a.topic();
      partitions[i] = a.partition();
      offsets[i] = a.offset();
    }
    try (PreparedStatement statement = connection.prepareStatement(INSERT_CONFLICTS)) {
      statement.setArray(1, connection.createArrayOf("uuid", ids));
      statement.setArray(2, connection.createArrayOf("text", payloads));
      statement.setArray(3, connection.createArrayOf("text", topics));
      statement.setArray(4, connection.createArrayOf("int4", partitions));
      statement.setArray(5, connection.createArrayOf("int8", offsets));
      return statement.executeUpdate();
    }
  }

  private static int insertRejected(Connection connection, List<Checked.Rejected> rejected)
      throws SQLException {
    if (rejected.isEmpty()) {
      return 0;
    }
    try (PreparedStatement statement = connection.prepareStatement(INSERT_REJECTED)) {
      for (Checked.Rejected r : rejected) {
        statement.setString(1, r.topic());
        statement.setInt(2, r.partition());
        statement.setLong(3, r.offset());
        statement.setBytes(4, r.key());
        statement.setBytes(5, r.value());
        statement.setString(6, r.field());
        statement.setString(7, r.reason());
        statement.addBatch();
      }
      int parked = 0;
      for (int count : statement.executeBatch()) {
        parked += Math.max(count, 0);
      }
      return parked;
    }
  }
}
