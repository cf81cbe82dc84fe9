package dev.vigil.notifier.receiver;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.kit.Settings;
import java.util.Map;

/** Starts reference receivers for tests, configured the way production does: through settings. */
public final class TestReceivers {
  private TestReceivers() {}

  /**
   * A receiver on {@code db} and any free port accepting {@code secrets} (comma-separated whsec_…).
   */
  public static ReferenceReceiver start(TestDatabase db, String secrets) {
    return ReferenceReceiver.start(
        ReceiverConfig.from(
            new Settings(
                Map.of(
                    "VIGIL_DB_URL",
                    db.jdbcUrl(),
                    "VIGIL_DB_USER",
                    db.user(),
                    "VIGIL_HTTP_PORT",
                    "0",
                    "VIGIL_WEBHOOK_SECRETS",
                    secrets))));
  }
}
