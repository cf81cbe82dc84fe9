package dev.vigil.relay;

import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Settings;
import dev.vigil.relay.config.RelayConfig;
import dev.vigil.relay.stream.RelayFencedException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Starts the relay from environment variables (see {@link RelayConfig#DEFINITION}). Exit codes: 0
 * after SIGTERM (in-flight batch finished, offsets stored, lock released), 2 for invalid
 * configuration, 3 when the relay refused to start (replication slot missing while offsets are
 * stored; the message says how to proceed), 4 when it was fenced (exactly-once delivery: a newer
 * relay on the same slot took over; started again it becomes a standby).
 */
public final class RelayMain {
  private RelayMain() {}

  public static void main(String[] args) throws InterruptedException {
    RelayConfig config;
    try {
      config = new RelayConfig(Settings.fromEnvironment());
    } catch (ConfigException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    RelayService service = RelayService.start(config);
    AtomicBoolean refused = new AtomicBoolean();
    Runtime.getRuntime()
        .addShutdownHook(
            Thread.ofPlatform()
                .name("relay-shutdown")
                .unstarted(
                    () -> {
                      service.close();
                      if (!refused.get()) {
                        // SIGTERM is a requested, clean stop: report it as success, not 143.
                        Runtime.getRuntime().halt(0);
                      }
                    }));
    try {
      service.terminated().get();
    } catch (ExecutionException e) {
      refused.set(true);
      System.err.println("relay stopped: " + e.getCause().getMessage());
      System.exit(e.getCause() instanceof RelayFencedException ? 4 : 3);
    }
  }
}
