package dev.vigil.relay.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.relay.config.RelayConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The relay's slot is a failover slot on PostgreSQL 17 unless the setting says otherwise. */
@ExtendWith(VigilInfraExtension.class)
class SlotFailoverIT {

  @Test
  void anExistingPlainSlotBecomesAFailoverSlotAndKeepsItsPosition(TestDatabase db)
      throws SQLException {
    String slot = slot();
    try (Connection c = db.connect()) {
      createPlainSlot(c, slot);
      String before = confirmedLsn(c, slot);

      SlotFailover.Outcome outcome = new SlotFailover(config(db, slot, true)).ensure(c);

      assertThat(outcome).isEqualTo(SlotFailover.Outcome.ENABLED);
      assertThat(failover(c, slot)).as("pg_replication_slots.failover").isTrue();
      assertThat(confirmedLsn(c, slot)).as("confirmed_flush_lsn").isEqualTo(before);
      assertThat(new SlotFailover(config(db, slot, true)).ensure(c))
          .isEqualTo(SlotFailover.Outcome.ALREADY);
      drop(c, slot);
    }
  }

  @Test
  void withTheSettingOffAPlainSlotStaysPlain(TestDatabase db) throws SQLException {
    String slot = slot();
    try (Connection c = db.connect()) {
      createPlainSlot(c, slot);

      assertThat(new SlotFailover(config(db, slot, false)).ensure(c))
          .isEqualTo(SlotFailover.Outcome.DISABLED);
      assertThat(failover(c, slot)).isFalse();
      drop(c, slot);
    }
  }

  @Test
  void aMissingSlotIsLeftToDebeziumWhichCreatesItAsAFailoverSlot(TestDatabase db)
      throws SQLException {
    try (Connection c = db.connect()) {
      assertThat(new SlotFailover(config(db, slot(), true)).ensure(c))
          .isEqualTo(SlotFailover.Outcome.WILL_CREATE);
    }
    // Debezium's side of it: the engine runs with slot.failover=true.
    assertThat(EngineProperties.of(config(db, slot(), true)))
        .containsEntry("slot.failover", "true");
    assertThat(EngineProperties.of(config(db, slot(), false)))
        .containsEntry("slot.failover", "false");
  }

  private static RelayConfig config(TestDatabase db, String slot, boolean failover) {
    return new RelayConfig(
        new Settings(
            Map.of(
                "VIGIL_DB_URL", db.jdbcUrl(),
                "VIGIL_DB_USER", db.user(),
                "VIGIL_DB_PASSWORD", db.password(),
                "VIGIL_KAFKA_BOOTSTRAP_SERVERS", "localhost:9",
                "VIGIL_RELAY_SLOT", slot,
                "VIGIL_RELAY_SLOT_FAILOVER", String.valueOf(failover))));
  }

  private static String slot() {
    return "fo_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  }

  private static void createPlainSlot(Connection c, String slot) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "select pg_create_logical_replication_slot(?, 'pgoutput', false, false, false)")) {
      s.setString(1, slot);
      s.execute();
    }
  }

  private static boolean failover(Connection c, String slot) throws SQLException {
    return query(c, "select failover::text from pg_replication_slots where slot_name = ?", slot)
        .equals("true");
  }

  private static String confirmedLsn(Connection c, String slot) throws SQLException {
    return query(
        c, "select confirmed_flush_lsn::text from pg_replication_slots where slot_name = ?", slot);
  }

  private static void drop(Connection c, String slot) throws SQLException {
    query(c, "select pg_drop_replication_slot(?)::text", slot);
  }

  private static String query(Connection c, String sql, String slot) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, slot);
      try (var rs = s.executeQuery()) {
        rs.next();
        return String.valueOf(rs.getString(1));
      }
    }
  }
}
