package dev.vigil.relay;

import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.kit.Settings;
import dev.vigil.relay.config.RelayConfig;
import dev.vigil.relay.ops.RelayStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.flywaydb.core.Flyway;

/** Database, settings and outbox rows for relay tests. */
final class RelayFixture {
  private RelayFixture() {}

  /** Creates the outbox table the way production does: the monitor's migrations. */
  static void migrateMonitor(TestDatabase db) {
    Flyway.configure()
        .dataSource(db.jdbcUrl(), db.user(), db.password())
        .locations("classpath:db/monitor")
        .table("flyway_monitor_history")
        .load()
        .migrate();
  }

  /** Settings of a relay on {@code db} and {@code kafka}, with test-friendly intervals. */
  static Map<String, String> env(
      TestDatabase db, TestKafka kafka, String slot, String topic, String instance) {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", db.jdbcUrl());
    env.put("VIGIL_DB_USER", db.user());
    env.put("VIGIL_DB_PASSWORD", db.password());
    env.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    env.put("VIGIL_TOPIC", topic);
    env.put("VIGIL_TOPIC_PARTITIONS", "4");
    env.put("VIGIL_TOPIC_REPLICATION_FACTOR", "1");
    env.put("VIGIL_RELAY_SLOT", slot);
    env.put("VIGIL_RELAY_PUBLICATION", "pub_" + slot);
    env.put("VIGIL_RELAY_HEARTBEAT_INTERVAL", "1s");
    env.put("VIGIL_RELAY_STANDBY_POLL_INTERVAL", "250ms");
    env.put("VIGIL_RELAY_MAX_RETRY_BACKOFF", "2s");
    env.put("VIGIL_RELAY_LAG_SAMPLE_INTERVAL", "500ms");
    env.put("VIGIL_HTTP_PORT", "0");
    env.put("VIGIL_INSTANCE_ID", instance);
    return env;
  }

  /** Starts a relay in this JVM and waits until it streams; a relay that does not is closed. */
  static RelayService startStreaming(RelayConfig config) {
    RelayService relay = RelayService.start(config);
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> relay.status().state() == RelayStatus.State.STREAMING);
      return relay;
    } catch (RuntimeException e) {
      relay.close();
      throw e;
    }
  }

  /**
   * One uninterrupted run of an in-JVM relay's engine, as far as a test can see from outside: the
   * status entry the relay is in (every state change, e.g. a restart through FAILING and STANDBY,
   * replaces it with one of a new {@code since}) and the walsender streaming from the slot (any
   * restart of the engine or of its connector task opens a new replication connection, served by a
   * new backend; Debezium restarts its task by itself after a retriable error, such as a broken
   * replication connection, and the relay's status does not change then). Equal runs at two moments
   * mean the relay did not restart in between, so it had no reason to send anything twice.
   */
  record StreamingRun(RelayStatus.Snapshot status, int walsenderPid) {}

  /**
   * The relay's run now. Take it only after a row written after the start has reached Kafka:
   * Debezium may reconnect its replication connection once while it starts streaming.
   */
  static StreamingRun currentRun(RelayService relay, TestDatabase db, String slot)
      throws SQLException {
    return new StreamingRun(relay.status(), slotActivePid(db, slot));
  }

  /** The backend pid of the walsender streaming from {@code slot}, or 0 while none does. */
  static int slotActivePid(TestDatabase db, String slot) throws SQLException {
    return pid(
        db, "select coalesce(active_pid, 0) from pg_replication_slots where slot_name = ?", slot);
  }

  /**
   * The backend pid of the session holding the relays' advisory lock for {@code slot} (the lock
   * that lets only one instance stream; see {@code LeaderLock}), or 0 while no session holds it.
   */
  static int lockHolderPid(TestDatabase db, String slot) throws SQLException {
    // A two-key advisory lock shows its keys in classid and objid, with objsubid 2.
    return pid(
        db,
        """
        select coalesce(max(pid), 0) from pg_locks
        where locktype = 'advisory' and granted and objsubid = 2
          and classid = hashtext('vigil.relay')::oid and objid = hashtext(?)::oid
          and database = (select oid from pg_database where datname = current_database())
        """,
        slot);
  }

  private static int pid(TestDatabase db, String sql, String slot) throws SQLException {
    try (Connection c = db.connect();
        PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, slot);
      try (var rs = s.executeQuery()) {
        return rs.next() ? rs.getInt(1) : 0;
      }
    }
  }

  static RelayConfig config(Map<String, String> env) {
    return new RelayConfig(new Settings(env));
  }

  static String uniqueSlot(String prefix) {
    return prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  }

  /** Creates the per-service counter the writers lock, like the monitor's alert_state row. */
  static void createSequenceTable(TestDatabase db) throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute("create table if not exists test_sequence (service text primary key, n int)");
    }
  }

  /**
   * Inserts one outbox row for {@code service} in its own transaction. The row lock on the
   * service's counter serialises writers of one service, so {@code consecutiveFailures} carries the
   * service's commit order.
   *
   * @return the event written
   */
  static AlertEvent insertNext(Connection c, String service) throws SQLException {
    c.setAutoCommit(false);
    try {
      int n;
      try (PreparedStatement upsert =
          c.prepareStatement(
              """
              insert into test_sequence (service, n) values (?, 1)
              on conflict (service) do update set n = test_sequence.n + 1
              returning n
              """)) {
        upsert.setString(1, service);
        try (var rs = upsert.executeQuery()) {
          rs.next();
          n = rs.getInt(1);
        }
      }
      AlertEvent event =
          AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), service, Instant.now(), n, null);
      insert(c, event);
      c.commit();
      return event;
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    }
  }

  /**
   * Inserts one outbox row for each of {@code services} in one transaction, taking the counters'
   * row locks in name order so concurrent writers cannot deadlock.
   */
  static java.util.List<AlertEvent> insertNextBatch(Connection c, java.util.List<String> services)
      throws SQLException {
    c.setAutoCommit(false);
    String[] sorted = new java.util.TreeSet<>(services).toArray(String[]::new);
    java.util.List<AlertEvent> events = new java.util.ArrayList<>();
    try (PreparedStatement upsert =
            c.prepareStatement(
                """
                insert into test_sequence (service, n)
                select s, 1 from unnest(?::text[]) with ordinality as t(s, o) order by o
                on conflict (service) do update set n = test_sequence.n + 1
                returning service, n
                """);
        PreparedStatement insert = c.prepareStatement(INSERT_OUTBOX)) {
      upsert.setArray(1, c.createArrayOf("text", sorted));
      try (var rs = upsert.executeQuery()) {
        while (rs.next()) {
          events.add(
              AlertEvent.failed(
                  UUID.randomUUID(),
                  UUID.randomUUID(),
                  rs.getString(1),
                  Instant.now(),
                  rs.getInt(2),
                  null));
        }
      }
      for (AlertEvent event : events) {
        bind(insert, event);
        insert.addBatch();
      }
      insert.executeBatch();
      c.commit();
      return events;
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    }
  }

  /** Inserts {@code event} as an outbox row, the way the monitor does, in the caller's tx. */
  static void insert(Connection c, AlertEvent event) throws SQLException {
    try (PreparedStatement insert = c.prepareStatement(INSERT_OUTBOX)) {
      bind(insert, event);
      insert.executeUpdate();
    }
  }

  private static final String INSERT_OUTBOX =
      """
      insert into outbox (id, aggregatetype, aggregateid, type, payload, incident_id,
                          schema_version, traceparent)
      values (?, 'service', ?, ?, ?::jsonb, ?, 1, ?)
      """;

  /** The traceparent the fixture writes with {@code event}: ids taken from the event id. */
  static String traceparent(AlertEvent event) {
    String hex = event.eventId().toString().replace("-", "");
    return "00-" + hex + "-" + hex.substring(16) + "-01";
  }

  private static void bind(PreparedStatement insert, AlertEvent event) throws SQLException {
    insert.setObject(1, event.eventId());
    insert.setString(2, event.service());
    insert.setString(3, event.kind().name());
    insert.setString(4, AlertEventJson.write(event));
    insert.setObject(5, event.incidentId());
    insert.setString(6, traceparent(event));
  }
}
