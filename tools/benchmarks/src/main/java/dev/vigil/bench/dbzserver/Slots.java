package dev.vigil.bench.dbzserver;

import dev.vigil.contract.OutboxContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The replication objects of the baselines: Debezium Server's publication (the outbox, inserts
 * only, as the relay's) and dropping a relay's slot once its cases are done, so the slot of a relay
 * that no longer runs does not hold WAL back for the rest of the run.
 */
final class Slots {
  /** The publication every Debezium Server variant reads (each through its own slot). */
  static final String PUBLICATION = "dbz_bench_outbox";

  private static final String PUBLICATION_EXISTS =
      """
      select exists (select 1 from pg_publication where pubname = ?)
      """;
  private static final String SLOT_ACTIVE =
      """
      select active from pg_replication_slots where slot_name = ?
      """;
  private static final String DROP_SLOT =
      """
      select pg_drop_replication_slot(?)
      """;

  private Slots() {}

  /** Creates the publication unless it exists. */
  static void createPublication(DataSource db) {
    try (Connection c = db.getConnection();
        PreparedStatement exists = c.prepareStatement(PUBLICATION_EXISTS)) {
      exists.setString(1, PUBLICATION);
      try (ResultSet rs = exists.executeQuery()) {
        rs.next();
        if (rs.getBoolean(1)) {
          return;
        }
      }
      try (Statement ddl = c.createStatement()) {
        ddl.execute(
            "create publication "
                + PUBLICATION
                + " for table "
                + OutboxContract.QUALIFIED_TABLE
                + " with (publish = 'insert')");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create publication " + PUBLICATION, e);
    }
  }

  /**
   * Drops {@code slot} once no walsender holds it any more (a stopped relay's connection may take a
   * moment to go); does nothing if it does not exist.
   */
  static void drop(DataSource db, String slot, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Connection c = db.getConnection();
        PreparedStatement active = c.prepareStatement(SLOT_ACTIVE)) {
      active.setString(1, slot);
      while (true) {
        try (ResultSet rs = active.executeQuery()) {
          if (!rs.next()) {
            return;
          }
          if (!rs.getBoolean(1)) {
            break;
          }
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("slot " + slot + " still active after " + timeout);
        }
        Thread.sleep(100); // polling the slot's state, not synchronising a test
      }
      try (PreparedStatement drop = c.prepareStatement(DROP_SLOT)) {
        drop.setString(1, slot);
        drop.execute();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot drop slot " + slot, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted dropping slot " + slot, e);
    }
  }
}
