package dev.vigil.drills.stack;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The environment each service process gets: the only place that knows the services' {@code
 * VIGIL_*} keys. Values are chosen for drills: short leases and timeouts so crashes are noticed
 * quickly, many delivery attempts so a receiver's misbehaviour delays deliveries instead of parking
 * them as dead.
 */
final class ServiceEnv {
  static final String RELAY_MAIN = "dev.vigil.relay.RelayMain";
  static final String NOTIFIER_MAIN = "dev.vigil.notifier.NotifierMain";
  static final String RECEIVER_MAIN = "dev.vigil.receiver.ReceiverMain";
  static final String MONITOR_MAIN = "dev.vigil.monitor.MonitorMain";

  /** Bearer token of the monitor's API and of the notifiers' admin API in drills. */
  static final String API_TOKEN = "drill-api-token";

  static final String RECEIVER_PATH = "/webhook";
  static final String RELAY_SLOT = "vigil_drill";
  static final String RELAY_OFFSETS_TOPIC = "drill.relay.offsets";

  /**
   * The notifier gives up on a response after this long; the chaos proxy's slow mode exceeds it.
   */
  static final int WEBHOOK_READ_TIMEOUT_MS = 1_000;

  private ServiceEnv() {}

  /**
   * The relay: one slot shared by every instance (the standby lock is named after it); retries back
   * off to at most 5 s (default 30 s) so a drill's outages are followed by quick recoveries.
   */
  static Map<String, String> relay(
      Infra infra, StackOptions options, String instanceId, int httpPort) {
    Map<String, String> env = database(infra, Infra.VIGIL_DB);
    env.put("VIGIL_HTTP_PORT", String.valueOf(httpPort));
    env.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", infra.bootstrapServers());
    env.put("VIGIL_TOPIC", options.topic());
    env.put("VIGIL_TOPIC_PARTITIONS", String.valueOf(options.partitions()));
    env.put("VIGIL_RELAY_SLOT", RELAY_SLOT);
    env.put("VIGIL_RELAY_PUBLICATION", "vigil_drill_outbox");
    env.put("VIGIL_RELAY_OFFSETS_TOPIC", RELAY_OFFSETS_TOPIC);
    env.put("VIGIL_INSTANCE_ID", instanceId);
    return env;
  }

  static Map<String, String> notifier(
      Infra infra, StackOptions options, int httpPort, String webhookUrl) {
    Map<String, String> env = database(infra, Infra.VIGIL_DB);
    env.put("VIGIL_HTTP_PORT", String.valueOf(httpPort));
    env.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", infra.bootstrapServers());
    env.put("VIGIL_TOPIC", options.topic());
    env.put("VIGIL_NOTIFIER_GROUP_ID", "vigil-drill-notifier");
    env.put("VIGIL_WEBHOOK_URL", webhookUrl);
    env.put("VIGIL_WEBHOOK_ALLOW_HTTP", "true");
    env.put("VIGIL_WEBHOOK_SECRETS", options.signingSecret());
    env.put("VIGIL_WEBHOOK_CONNECT_TIMEOUT", "1s");
    env.put("VIGIL_WEBHOOK_READ_TIMEOUT", WEBHOOK_READ_TIMEOUT_MS + "ms");
    env.put("VIGIL_NOTIFIER_WORKERS", "8");
    env.put("VIGIL_NOTIFIER_MAX_ATTEMPTS", "100");
    env.put("VIGIL_NOTIFIER_BACKOFF_INITIAL", "100ms");
    env.put("VIGIL_NOTIFIER_BACKOFF_MAX", "2s");
    env.put("VIGIL_NOTIFIER_RETRY_AFTER_MAX", "5s");
    env.put("VIGIL_NOTIFIER_LEASE", "6s");
    env.put("VIGIL_NOTIFIER_POLL_INTERVAL", "50ms");
    env.put("VIGIL_NOTIFIER_ADMIN_TOKEN", API_TOKEN);
    return env;
  }

  /**
   * The monitor: its API and pushed results only (no scheduler: the drills' outbox rows come from
   * the workload), on the outbox database the workload writes.
   */
  static Map<String, String> monitor(Infra infra, int httpPort) {
    Map<String, String> env = database(infra, Infra.VIGIL_DB);
    env.put("VIGIL_HTTP_PORT", String.valueOf(httpPort));
    env.put("VIGIL_MONITOR_API_TOKEN", API_TOKEN);
    env.put("VIGIL_MONITOR_SCHEDULER_ENABLED", "false");
    return env;
  }

  /**
   * A probing monitor of {@code location}: the scheduler on, short leases (5 s: long enough for a
   * recording on a loaded machine) so a restarted instance picks its location's targets up again
   * within seconds, a small pool (three of them share the drill's PostgreSQL with the other
   * processes).
   */
  static Map<String, String> locatedMonitor(Infra infra, int httpPort, String location) {
    Map<String, String> env = monitor(infra, httpPort);
    env.put("VIGIL_MONITOR_SCHEDULER_ENABLED", "true");
    env.put("VIGIL_MONITOR_LOCATION", location);
    env.put("VIGIL_INSTANCE_ID", "monitor-" + location);
    env.put("VIGIL_MONITOR_LEASE", "5s");
    env.put("VIGIL_MONITOR_CLAIM_POLL_INTERVAL", "100ms");
    env.put("VIGIL_DB_POOL_SIZE", "4");
    return env;
  }

  static Map<String, String> receiver(Infra infra, StackOptions options, int httpPort) {
    Map<String, String> env = database(infra, Infra.RECEIVER_DB);
    env.put("VIGIL_HTTP_PORT", String.valueOf(httpPort));
    env.put("VIGIL_WEBHOOK_SECRETS", options.signingSecret());
    return env;
  }

  private static Map<String, String> database(Infra infra, String database) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("VIGIL_DB_URL", infra.jdbcUrl(database));
    env.put("VIGIL_DB_USER", infra.dbUser());
    env.put("VIGIL_DB_PASSWORD", "");
    return env;
  }
}
