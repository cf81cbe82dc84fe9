package dev.vigil.monitor.status;

import dev.vigil.harness.junit.TestDatabase;
import java.util.HashMap;
import java.util.Map;

/** Settings of a monitor on the test database, on a free port, for the status page tests. */
final class TestMonitors {
  private TestMonitors() {}

  static Map<String, String> settings(TestDatabase db, String token) {
    Map<String, String> settings = new HashMap<>();
    settings.put("VIGIL_DB_URL", db.jdbcUrl());
    settings.put("VIGIL_DB_USER", db.user());
    settings.put("VIGIL_DB_PASSWORD", db.password());
    settings.put("VIGIL_DB_POOL_SIZE", "4");
    settings.put("VIGIL_HTTP_PORT", "0");
    settings.put("VIGIL_MONITOR_API_TOKEN", token);
    return settings;
  }
}
