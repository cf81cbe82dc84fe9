package dev.vigil.bench.relay;

import dev.vigil.bench.ExtraEnvironment;
import dev.vigil.bench.Infra;
import dev.vigil.kit.Settings;
import dev.vigil.relay.RelayService;
import dev.vigil.relay.config.RelayConfig;
import dev.vigil.relay.ops.RelayStatus;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** Starts Vigil's relay in this JVM with its default settings, on a given database and topic. */
public final class VigilRelay {
  /**
   * System property with relay settings an experiment adds to every relay this class starts
   * (space-separated {@code NAME=value}, e.g. {@code VIGIL_RELAY_POLL_INTERVAL=50ms}).
   */
  static final String ENV_OVERRIDE = "bench.relay.env";

  private VigilRelay() {}

  /** The settings a deployment would give it; everything else is the relay's default. */
  public static Map<String, String> settings(Infra infra, String database, String topic) {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", infra.jdbcUrl(database));
    env.put("VIGIL_DB_USER", "postgres");
    env.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", infra.bootstrapServers());
    env.put("VIGIL_TOPIC", topic);
    env.put("VIGIL_HTTP_PORT", "0");
    env.put("VIGIL_RELAY_SLOT", "bench_" + database);
    env.put("VIGIL_INSTANCE_ID", "bench-" + database);
    env.putAll(ExtraEnvironment.of(ENV_OVERRIDE));
    return env;
  }

  /** Starts the relay and waits until it streams (it may first be a standby for a moment). */
  public static RelayService start(Infra infra, String database, String topic) {
    return start(settings(infra, database, topic));
  }

  /** The same with {@code VIGIL_RELAY_DELIVERY=delivery} (exactly-once or at-least-once). */
  public static RelayService start(Infra infra, String database, String topic, String delivery) {
    Map<String, String> env = settings(infra, database, topic);
    env.put("VIGIL_RELAY_DELIVERY", delivery);
    return start(env);
  }

  private static RelayService start(Map<String, String> env) {
    RelayService relay = RelayService.start(new RelayConfig(new Settings(env)));
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (relay.status().state() != RelayStatus.State.STREAMING) {
      if (System.nanoTime() > deadline) {
        relay.close();
        throw new IllegalStateException("relay not streaming after 120 s: " + relay.status());
      }
      try {
        Thread.sleep(20); // polling the relay's state, not synchronising a test
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    return relay;
  }
}
