package dev.vigil.notifier.intake;

import dev.vigil.kit.SafeText;
import dev.vigil.kit.db.Database;
import dev.vigil.kit.db.DatabaseException;
import dev.vigil.notifier.internal.ServiceLocks;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores one poll batch: receipts, conflicts (same id, different payload: both payloads kept, the
 * receipt untouched), rejected records and skipped ones (a kind this code does not know). An event
 * gets one receipt row per channel its route names (the default: the signed webhook), inserted only
 * when the event has no row yet ({@code not exists}, then {@code on conflict (event_id, channel) do
 * nothing}). A redelivered record therefore never creates a second receipt, even after the routes
 * changed.
 *
 * <p>The batch is first tried in one transaction. If the database refuses it for a reason that lies
 * in the data (SQLSTATE class 22 data exception, 23 constraint violation, 54 limit exceeded), the
 * batch is stored again in one transaction with a savepoint per record: a record the database
 * refuses is parked with the database's (sanitised) reason and the others are stored. Any other
 * failure (connection lost, database down) is thrown: the caller retries the whole batch later.
 * Payloads are compared as text (both are canonical JSON), never cast, so the comparison cannot
 * fail on the data.
 */
final class ReceiptStore {
  private static final Logger LOG = LoggerFactory.getLogger(ReceiptStore.class);

  /** What one batch changed; {@code refused} are records the database would not take as valid. */
  record Stored(
      int inserted,
      int duplicates,
      int conflicts,
      int rejected,
      List<Checked.Rejected> refused,
      int skipped) {
    Stored(
        int inserted, int duplicates, int conflicts, int rejected, List<Checked.Rejected> refused) {
      this(inserted, duplicates, conflicts, rejected, refused, 0);
    }
  }

  /** The channel every event goes to when no routes are configured. */
  static final Function<String, List<String>> DEFAULT_CHANNEL = service -> List.of("webhook");

  private static final String INSERT_RECEIPTS =
      """
      insert into notifier_receipt
        (event_id, service, kind, incident_id, payload, kafka_topic, kafka_partition, kafka_offset,
         channel, traceparent)
      select u.event_id, u.service, u.kind, u.incident_id, u.payload, u.topic, u.part, u.off,
             c.channel, u.traceparent
        from unnest(?::uuid[], ?::text[], ?::text[], ?::uuid[], ?::text[], ?::text[], ?::int[],
                    ?::bigint[], ?::text[], ?::text[]) with ordinality
             as u(event_id, service, kind, incident_id, payload, topic, part, off, channels,
                  traceparent, ord)
       cross join lateral unnest(string_to_array(u.channels, ',')) with ordinality
             as c(channel, cord)
       where not exists (select 1 from notifier_receipt r where r.event_id = u.event_id)
       order by u.ord, c.cord
      on conflict (event_id, channel) do nothing
      returning event_id, service
      """;

  private static final String INSERT_SKIPPED =
      """
      insert into notifier_skipped_kind (kafka_topic, kafka_partition, kafka_offset, kind)
      values (?, ?, ?, ?)
      on conflict (kafka_topic, kafka_partition, kafka_offset) do nothing
      """;

  private static final String INSERT_CONFLICTS =
      """
      insert into notifier_conflict
        (event_id, original_payload, conflicting_payload, kafka_topic, kafka_partition,
         kafka_offset)
      select distinct on (u.event_id, u.payload) u.event_id, r.payload, u.payload, u.topic, u.part,
             u.off
        from unnest(?::uuid[], ?::text[], ?::text[], ?::int[], ?::bigint[])
             as u(event_id, payload, topic, part, off)
        join notifier_receipt r on r.event_id = u.event_id
       where r.payload <> u.payload
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
  private final Function<String, List<String>> channels;

  ReceiptStore(Database database) {
    this(database, DEFAULT_CHANNEL);
  }

  /**
   * @param channels the channels (at least one, names without commas) of a service's events
   */
  ReceiptStore(Database database, Function<String, List<String>> channels) {
    this.database = database;
    this.channels = channels;
  }

  Stored store(List<Checked.Accepted> accepted, List<Checked.Rejected> rejected) {
    return store(accepted, rejected, List.of());
  }

  /** Stores receipts, parks rejected records and notes skipped ones, in one transaction. */
  Stored store(
      List<Checked.Accepted> accepted,
      List<Checked.Rejected> rejected,
      List<Checked.Skipped> skipped) {
    Stored stored = storeReceipts(accepted, rejected, skipped);
    return new Stored(
        stored.inserted(),
        stored.duplicates(),
        stored.conflicts(),
        stored.rejected(),
        stored.refused(),
        skipped.size());
  }

  private Stored storeReceipts(
      List<Checked.Accepted> accepted,
      List<Checked.Rejected> rejected,
      List<Checked.Skipped> skipped) {
    try {
      return database.inTransaction(
          "storing " + accepted.size() + " receipts",
          c -> {
            insertSkipped(c, skipped);
            return storeAll(c, accepted, rejected);
          });
    } catch (DatabaseException e) {
      if (!causedByData(e.sqlState())) {
        throw e;
      }
      LOG.warn(
          "intake batch refused records={} sqlstate={} action=store_record_by_record"
              + " error=\"{}\"",
          accepted.size() + rejected.size(),
          e.sqlState(),
          SafeText.text(e.getMessage(), SafeText.MAX_REASON));
      return database.inTransaction(
          "storing " + accepted.size() + " receipts one by one",
          c -> {
            insertSkipped(c, skipped);
            return storeEach(c, accepted, rejected);
          });
    }
  }

  /**
   * Whether a failure with {@code sqlState} is caused by the rows written, not by the database's
   * state: data exceptions, constraint violations, program limits.
   */
  static boolean causedByData(String sqlState) {
    return sqlState != null
        && (sqlState.startsWith("22") || sqlState.startsWith("23") || sqlState.startsWith("54"));
  }

  private static void insertSkipped(Connection connection, List<Checked.Skipped> skipped)
      throws SQLException {
    if (skipped.isEmpty()) {
      return;
    }
    try (PreparedStatement statement = connection.prepareStatement(INSERT_SKIPPED)) {
      for (Checked.Skipped s : skipped) {
        statement.setString(1, s.topic());
        statement.setInt(2, s.partition());
        statement.setLong(3, s.offset());
        statement.setString(4, s.kind());
        statement.addBatch();
      }
      statement.executeBatch();
    }
  }

  private Stored storeAll(
      Connection connection, List<Checked.Accepted> accepted, List<Checked.Rejected> rejected)
      throws SQLException {
    Set<String> services = new HashSet<>();
    int inserted = insertReceipts(connection, accepted, services);
    int conflicts = inserted == accepted.size() ? 0 : insertConflicts(connection, accepted);
    int parked = insertRejected(connection, rejected);
    ServiceLocks.lock(connection, services);
    ServiceLocks.promoteHeads(connection, services);
    return new Stored(
        inserted, accepted.size() - inserted - conflicts, conflicts, parked, List.of());
  }

  private Stored storeEach(
      Connection connection, List<Checked.Accepted> accepted, List<Checked.Rejected> rejected)
      throws SQLException {
    Set<String> services = new HashSet<>();
    List<Checked.Rejected> refused = new ArrayList<>();
    int inserted = 0;
    int conflicts = 0;
    int stored = 0;
    for (Checked.Accepted a : accepted) {
      Savepoint savepoint = connection.setSavepoint();
      try {
        Set<String> service = new HashSet<>();
        int added = insertReceipts(connection, List.of(a), service);
        int conflict = added == 1 ? 0 : insertConflicts(connection, List.of(a));
        connection.releaseSavepoint(savepoint);
        inserted += added;
        conflicts += conflict;
        stored++;
        services.addAll(service);
      } catch (SQLException e) {
        if (!causedByData(e.getSQLState())) {
          throw e;
        }
        connection.rollback(savepoint);
        refused.add(
            new Checked.Rejected(
                a.topic(),
                a.partition(),
                a.offset(),
                a.key(),
                a.value(),
                "database",
                "refused by the database (SQLSTATE " + e.getSQLState() + "): " + e.getMessage()));
      }
    }
    List<Checked.Rejected> park = new ArrayList<>(rejected);
    park.addAll(refused);
    int parked = 0;
    for (Checked.Rejected r : park) {
      Savepoint savepoint = connection.setSavepoint();
      try {
        parked += insertRejected(connection, List.of(r));
        connection.releaseSavepoint(savepoint);
      } catch (SQLException e) {
        if (!causedByData(e.getSQLState())) {
          throw e;
        }
        connection.rollback(savepoint);
        // Raw bytes and a sanitised reason cannot be refused; keep where it came from at least.
        parked +=
            insertRejected(
                connection,
                List.of(
                    new Checked.Rejected(
                        r.topic(),
                        r.partition(),
                        r.offset(),
                        null,
                        null,
                        "database",
                        "record could not be stored (SQLSTATE " + e.getSQLState() + ")")));
      }
    }
    ServiceLocks.lock(connection, services);
    ServiceLocks.promoteHeads(connection, services);
    return new Stored(inserted, stored - inserted - conflicts, conflicts, parked, refused);
  }

  /** Inserts one row per (event, channel); returns the number of events that got rows. */
  private int insertReceipts(
      Connection connection, List<Checked.Accepted> batch, Set<String> services)
      throws SQLException {
    if (batch.isEmpty()) {
      return 0;
    }
    try (PreparedStatement statement = connection.prepareStatement(INSERT_RECEIPTS)) {
      bind(
          connection,
          statement,
          batch,
          EVENT_ID,
          SERVICE,
          KIND,
          INCIDENT_ID,
          PAYLOAD,
          TOPIC,
          PARTITION,
          OFFSET,
          new Column<>(
              "text", a -> String.join(",", channels.apply(a.event().service())), String[]::new),
          new Column<>("text", Checked.Accepted::traceparent, String[]::new));
      Set<UUID> events = new HashSet<>();
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          events.add(rows.getObject(1, UUID.class));
          services.add(rows.getString(2));
        }
      }
      return events.size();
    }
  }

  private static int insertConflicts(Connection connection, List<Checked.Accepted> batch)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(INSERT_CONFLICTS)) {
      bind(connection, statement, batch, EVENT_ID, PAYLOAD, TOPIC, PARTITION, OFFSET);
      return statement.executeUpdate();
    }
  }

  /**
   * One array parameter of an {@code unnest(...)} insert: the SQL element type and what each record
   * of the batch puts into the array.
   */
  private record Column<T>(
      String sqlType, Function<Checked.Accepted, T> value, IntFunction<T[]> newArray) {}

  private static final Column<UUID> EVENT_ID =
      new Column<>("uuid", a -> a.event().eventId(), UUID[]::new);
  private static final Column<String> SERVICE =
      new Column<>("text", a -> a.event().service(), String[]::new);
  private static final Column<String> KIND =
      new Column<>("text", a -> a.event().kind().name(), String[]::new);
  private static final Column<UUID> INCIDENT_ID =
      new Column<>("uuid", a -> a.event().incidentId(), UUID[]::new);
  private static final Column<String> PAYLOAD =
      new Column<>("text", Checked.Accepted::payload, String[]::new);
  private static final Column<String> TOPIC =
      new Column<>("text", Checked.Accepted::topic, String[]::new);
  private static final Column<Integer> PARTITION =
      new Column<>("int4", Checked.Accepted::partition, Integer[]::new);
  private static final Column<Long> OFFSET =
      new Column<>("int8", Checked.Accepted::offset, Long[]::new);

  /** Binds the columns, in order, as the statement's parameters 1..n. */
  private static void bind(
      Connection connection,
      PreparedStatement statement,
      List<Checked.Accepted> batch,
      Column<?>... columns)
      throws SQLException {
    for (int i = 0; i < columns.length; i++) {
      statement.setArray(i + 1, array(connection, batch, columns[i]));
    }
  }

  private static <T> Array array(
      Connection connection, List<Checked.Accepted> batch, Column<T> column) throws SQLException {
    T[] values = column.newArray().apply(batch.size());
    for (int i = 0; i < values.length; i++) {
      values[i] = column.value().apply(batch.get(i));
    }
    return connection.createArrayOf(column.sqlType(), values);
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

  private static final String LAST_STORED =
      """
      select greatest(
          (select max(kafka_offset) from notifier_receipt
            where kafka_topic = ? and kafka_partition = ?),
          (select max(kafka_offset) from notifier_rejected
            where kafka_topic = ? and kafka_partition = ?),
          (select max(kafka_offset) from notifier_skipped_kind
            where kafka_topic = ? and kafka_partition = ?))
      """;

  /**
   * The highest offset of {@code topic}/{@code partition} this database holds a record of (a
   * receipt, a rejected record or a skipped kind), or empty: where intake resumes when the group's
   * committed offset is gone.
   */
  OptionalLong lastStoredOffset(String topic, int partition) {
    return database.inTransaction(
        "reading the last stored offset of " + topic + "-" + partition,
        connection -> {
          try (PreparedStatement statement = connection.prepareStatement(LAST_STORED)) {
            for (int i = 0; i < 3; i++) {
              statement.setString(2 * i + 1, topic);
              statement.setInt(2 * i + 2, partition);
            }
            try (ResultSet rs = statement.executeQuery()) {
              rs.next();
              long offset = rs.getLong(1);
              return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(offset);
            }
          }
        });
  }
}
