package dev.vigil.harness.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The pair streams, keeps failover slots in sync, and survives the primary's SIGKILL. */
class PostgresStandbyPairIT {

  @Test
  void aFailoverSlotReachesTheStandbyAndIsUsableAfterThePrimaryIsKilledAndTheStandbyPromoted()
      throws Exception {
    Path dir = Path.of("target", "pg-pair-" + UUID.randomUUID().toString().substring(0, 8));
    try (PostgresStandbyPair pair = PostgresStandbyPair.start(dir);
        TcpForwarder address = TcpForwarder.start(pair.primaryPort())) {
      pair.createDatabase("app");
      String url = PostgresStandbyPair.jdbcUrl(address.port(), "app");
      execute(url, "create table t (n int)");
      execute(url, "create publication p for table t");
      execute(url, "insert into t values (1)");
      execute(
          url, "select pg_create_logical_replication_slot('fo', 'pgoutput', false, false, true)");
      execute(
          url,
          "select pg_create_logical_replication_slot('plain', 'pgoutput', false, false, false)");
      execute(url, "insert into t values (2)");

      // A slot is synchronised once the primary's copy has moved past what the standby needs (its
      // catalog xmin too): a consumer that keeps confirming, as the relay's heartbeats do.
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                execute(url, "select pg_log_standby_snapshot()");
                execute(url, "select pg_replication_slot_advance('fo', pg_current_wal_lsn())");
                return pair.standbyHasSyncedSlot("fo");
              });
      assertThat(pair.standbyHasSyncedSlot("plain"))
          .as("a plain slot is not synchronised")
          .isFalse();

      pair.killPrimary();
      assertThat(canConnect(url)).as("the address still leads to the dead primary").isFalse();
      pair.promoteStandby();
      address.retarget(pair.standbyPort());

      assertThat(count(url, "select count(*) from t")).as("committed rows").isEqualTo(2);
      execute(url, "insert into t values (3)");
      assertThat(
              count(
                  url,
                  "select count(*) from pg_logical_slot_peek_binary_changes('fo', null, null,"
                      + " 'proto_version', '1', 'publication_names', 'p')"))
          .as("the synced slot decodes the new primary's insert (begin, insert, commit)")
          .isGreaterThanOrEqualTo(3);
    }
  }

  private static void execute(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, PostgresStandbyPair.USER, "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static long count(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, PostgresStandbyPair.USER, "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static boolean canConnect(String url) {
    try (Connection c =
        DriverManager.getConnection(url + "?connectTimeout=5", PostgresStandbyPair.USER, "")) {
      return c.isValid(5);
    } catch (SQLException e) {
      return false;
    }
  }
}
