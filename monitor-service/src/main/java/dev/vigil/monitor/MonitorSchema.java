package dev.vigil.monitor;

import dev.vigil.kit.db.Database;
import javax.sql.DataSource;

/**
 * The monitor's database schema: targets, state machine, incidents, history, probe leases and the
 * outbox. The migrations live in the monitor-schema module (the relay's and Kafka Connect's tests
 * apply them without the monitor); this class applies them.
 */
public final class MonitorSchema {
  /** Flyway location of the monitor migrations. */
  public static final String LOCATION = "classpath:db/monitor";

  /** Flyway history table, distinct from the notifier's so both can share one database. */
  public static final String HISTORY_TABLE = "flyway_monitor_history";

  private MonitorSchema() {}

  /** Applies every pending monitor migration; idempotent and safe to run from several instances. */
  public static void migrate(DataSource dataSource) {
    Database.migrate(dataSource, LOCATION, HISTORY_TABLE);
  }
}
