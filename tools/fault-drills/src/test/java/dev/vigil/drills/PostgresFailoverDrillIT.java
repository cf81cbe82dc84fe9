package dev.vigil.drills;

import org.junit.jupiter.api.Test;

/**
 * The {@code postgres-failover} drill at the short drill's sizes: PostgreSQL as a primary and a
 * synchronous standby, the primary killed with SIGKILL once the relay's failover slot is synced,
 * the standby promoted. Results go to {@code target/postgres-failover-drill/short-drill.md}.
 */
class PostgresFailoverDrillIT {

  @Test
  void aPrimaryFailoverLosesNothingStoresNothingTwiceAndKeepsOrder() {
    ShortSingleDrill.runAndCheck(
        Drills.POSTGRES_FAILOVER, "postgres-failover-drill", "postgres primary kill -9");
  }
}
