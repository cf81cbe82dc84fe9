package dev.vigil.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertTopic;
import dev.vigil.harness.FreePorts;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The shipped connector keeps its replication slot moving while the outbox is idle and other tables
 * of the database write WAL (which the slot would otherwise hold back), and its heartbeats never
 * reach the alert topic.
 */
@ExtendWith(VigilInfraExtension.class)
class IdleOutboxHeartbeatIT {

  @Test
  void anIdleOutboxStillAdvancesTheSlotAndPutsNothingOnTheTopic(TestDatabase db, TestKafka kafka)
      throws Exception {
    Outbox.migrate(db);
    String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    String slot = "idle_connect_" + suffix;
    String topic = kafka.uniqueName("idle-alerts");
    Map<String, String> values = values(db, kafka, suffix, slot, topic);
    try (ConnectWorker worker =
        ConnectWorker.start(
            Placeholders.fill(Files.readString(ConnectorContractIT.WORKER_PROPERTIES), values))) {
      String name =
          worker.put(
              Placeholders.fill(Files.readString(ConnectorContractIT.CONNECTOR_JSON), values));
      worker.awaitRunning(name);
      await("connector slot created")
          .atMost(Duration.ofMinutes(2))
          .until(() -> confirmedFlushLsn(db, slot) != null);

      // One event, so the connector has streamed something; then the outbox stays idle.
      AlertEvent event =
          AlertEvent.failed(
              UUID.randomUUID(), UUID.randomUUID(), "idle-svc", Instant.now(), 3, "x");
      try (Connection c = db.connect()) {
        Outbox.insertInOneTransaction(c, List.of(event));
        try (Statement s = c.createStatement()) {
          s.execute("create table other_work (id bigserial primary key, note text)");
        }
      }
      try (TopicRecords records = new TopicRecords(kafka.bootstrapServers(), topic)) {
        await("the one event on the topic")
            .atMost(Duration.ofMinutes(2))
            .until(() -> records.poll().size() == 1);

        // Other tables write WAL; the slot must confirm past what was written from here on.
        String mark = writeOtherWork(db);
        await("the slot's confirmed_flush_lsn past " + mark + " while the outbox is idle")
            .atMost(Duration.ofMinutes(3))
            .pollInterval(Duration.ofMillis(500))
            .until(
                () -> {
                  writeOtherWork(db);
                  return lsnAtLeast(db, confirmedFlushLsn(db, slot), mark);
                });

        // Heartbeats went through the connector meanwhile: none reached the alert topic.
        assertThat(records.poll())
            .singleElement()
            .satisfies(
                w ->
                    assertThat(w.header(AlertTopic.HEADER_EVENT_ID))
                        .isEqualTo(event.eventId().toString()));
      }
    }
  }

  /** Writes a row to a table outside the publication; returns the WAL position after it. */
  private static String writeOtherWork(TestDatabase db) throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute("insert into other_work (note) values (repeat('x', 200))");
      try (ResultSet rs = s.executeQuery("select pg_current_wal_lsn()::text")) {
        rs.next();
        return rs.getString(1);
      }
    }
  }

  private static String confirmedFlushLsn(TestDatabase db, String slot) throws SQLException {
    try (Connection c = db.connect();
        PreparedStatement s =
            c.prepareStatement(
                "select confirmed_flush_lsn::text from pg_replication_slots where slot_name = ?")) {
      s.setString(1, slot);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private static boolean lsnAtLeast(TestDatabase db, String lsn, String mark) throws SQLException {
    if (lsn == null) {
      return false;
    }
    try (Connection c = db.connect();
        PreparedStatement s = c.prepareStatement("select ?::pg_lsn >= ?::pg_lsn")) {
      s.setString(1, lsn);
      s.setString(2, mark);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  private static Map<String, String> values(
      TestDatabase db, TestKafka kafka, String suffix, String slot, String topic) throws Exception {
    Path secrets = Files.createDirectories(Path.of("target", "idle-secrets-" + suffix));
    Files.writeString(secrets.resolve("db_password"), db.password());
    Map<String, String> v = new HashMap<>();
    v.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    v.put("VIGIL_CONNECT_GROUP_ID", "idle-connect-" + suffix);
    v.put("VIGIL_CONNECT_REST_HOST", "127.0.0.1");
    v.put("VIGIL_CONNECT_REST_PORT", String.valueOf(FreePorts.pick()));
    v.put("VIGIL_CONNECT_ADVERTISED_HOST", "127.0.0.1");
    v.put("VIGIL_CONNECT_REPLICATION_FACTOR", "1");
    v.put("VIGIL_CONNECT_SECRETS_DIR", secrets.toAbsolutePath().toString());
    v.put(
        "VIGIL_CONNECT_PLUGIN_PATH",
        Files.createDirectories(Path.of("target", "connect-plugins")).toAbsolutePath().toString());
    v.put("VIGIL_CONNECT_CONNECTOR_NAME", "idle-outbox-" + suffix);
    v.put("VIGIL_DB_HOST", db.host());
    v.put("VIGIL_DB_PORT", String.valueOf(db.port()));
    v.put("VIGIL_DB_NAME", db.name());
    v.put("VIGIL_DB_USER", db.user());
    v.put("VIGIL_DB_SSLMODE", "disable");
    v.put("VIGIL_CONNECT_SLOT", slot);
    v.put("VIGIL_CONNECT_PUBLICATION", "idle_pub_" + suffix);
    v.put("VIGIL_CONNECT_PUBLICATION_AUTOCREATE", "filtered");
    v.put("VIGIL_CONNECT_SNAPSHOT_MODE", "no_data");
    v.put("VIGIL_CONNECT_HEARTBEAT_INTERVAL_MS", "1000");
    v.put("VIGIL_TOPIC", topic);
    v.put("VIGIL_TOPIC_PARTITIONS", "2");
    v.put("VIGIL_TOPIC_REPLICATION_FACTOR", "1");
    return v;
  }
}
