package dev.vigil.monitor;

import static dev.vigil.kit.CommonSettings.DB_PASSWORD;
import static dev.vigil.kit.CommonSettings.DB_POOL_SIZE;
import static dev.vigil.kit.CommonSettings.DB_URL;
import static dev.vigil.kit.CommonSettings.DB_USER;
import static dev.vigil.kit.CommonSettings.HTTP_PORT;
import static dev.vigil.kit.CommonSettings.INSTANCE_ID;

import dev.vigil.kit.ConfigDef;
import dev.vigil.kit.ServiceConfig;
import dev.vigil.kit.Setting;
import dev.vigil.kit.Settings;
import dev.vigil.kit.tracing.TracingSettings;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Everything the monitor reads from its environment, validated once. The instance id is the lease
 * owner name; secrets (database password, API token) never appear in {@link #toString()}.
 */
public final class MonitorConfig extends ServiceConfig {
  public static final Setting<String> API_TOKEN =
      Setting.secret("VIGIL_MONITOR_API_TOKEN", null)
          .check(token -> token.length() >= 8, "must be at least 8 characters")
          .doc("Bearer token required by mutating API calls.");
  public static final Setting<String> TARGETS_FILE =
      Setting.string("VIGIL_MONITOR_TARGETS_FILE", "")
          .doc("YAML file of targets loaded into the database at startup.");
  public static final Setting<String> LOCATION =
      Setting.string("VIGIL_MONITOR_LOCATION", "default")
          .check(
              location -> dev.vigil.contract.AlertEvent.LOCATION_NAME.matcher(location).matches(),
              "must be 1-32 characters of a-z, 0-9 and '-', starting with a letter or digit")
          .doc(
              "The location this instance probes from: it probes the targets that list this"
                  + " location (with that location's own counters) and every target that lists"
                  + " none.");
  public static final Setting<Boolean> SCHEDULER_ENABLED =
      Setting.bool("VIGIL_MONITOR_SCHEDULER_ENABLED", true)
          .doc("Whether this instance probes targets (false: API and pushed results only).");
  public static final Setting<Duration> LEASE =
      Setting.duration("VIGIL_MONITOR_LEASE", "30s")
          .range("1s", "10m")
          .doc(
              "Minimum probe lease; a crashed instance's targets are taken over after it expires.");
  public static final Setting<Integer> CLAIM_BATCH =
      Setting.integer("VIGIL_MONITOR_CLAIM_BATCH", 200)
          .range("1", "5000")
          .doc("Most targets claimed per statement.");
  public static final Setting<Duration> CLAIM_POLL_INTERVAL =
      Setting.duration("VIGIL_MONITOR_CLAIM_POLL_INTERVAL", "200ms")
          .range("10ms", "10s")
          .doc("Pause between claims when no more targets are due.");
  public static final Setting<Integer> MAX_IN_FLIGHT =
      Setting.integer("VIGIL_MONITOR_MAX_IN_FLIGHT", 2000)
          .range("1", "20000")
          .doc("Most concurrent probes on this instance.");
  public static final Setting<Integer> RECORD_BATCH =
      Setting.integer("VIGIL_MONITOR_RECORD_BATCH", 200)
          .range("1", "1000")
          .doc(
              "Most probe results recorded in one transaction (row locks held until its commit);"
                  + " 1 records every result in a transaction of its own.");
  public static final Setting<Integer> RECORD_WORKERS =
      Setting.integer("VIGIL_MONITOR_RECORD_WORKERS", 4)
          .range("1", "100")
          .doc(
              "Recording transactions at once when results are batched (each holds a database"
                  + " connection); keep it below VIGIL_DB_POOL_SIZE.");
  public static final Setting<Duration> HISTORY_RETENTION =
      Setting.duration("VIGIL_MONITOR_HISTORY_RETENTION", "168h")
          .range("1m", "87600h")
          .doc("Check history older than this is deleted.");
  public static final Setting<Duration> OUTBOX_RETENTION =
      Setting.duration("VIGIL_MONITOR_OUTBOX_RETENTION", "168h")
          .range("1m", "87600h")
          .doc(
              "Outbox rows older than this are deleted; the relay streams them from the WAL, so"
                  + " this only bounds how long they can be looked up in the table.");
  public static final Setting<Integer> RETENTION_BATCH =
      Setting.integer("VIGIL_MONITOR_RETENTION_BATCH", 1000)
          .range("10", "100000")
          .doc("Rows deleted per retention transaction.");
  public static final Setting<Duration> RETENTION_INTERVAL =
      Setting.duration("VIGIL_MONITOR_RETENTION_INTERVAL", "5m")
          .range("1s", "24h")
          .doc("Pause between retention runs.");

  public static final Setting<Duration> HEARTBEAT_GRACE =
      Setting.duration("VIGIL_MONITOR_HEARTBEAT_GRACE", "30s")
          .range("0s", "1h")
          .doc("Time allowed beyond a push target's heartbeat before the monitor records it DOWN.");

  public static final Setting<String> STATUS_PAGE_ACCESS =
      Setting.string("VIGIL_MONITOR_STATUS_PAGE", "public")
          .oneOf("public", "token")
          .doc(
              "Who may read the status page and badges (/status…): public (anyone) or token (the"
                  + " API token, as Bearer or as the Basic-auth password).");
  public static final Setting<String> PUBLIC_DETAILS =
      Setting.string("VIGIL_MONITOR_PUBLIC_DETAILS", "none")
          .oneOf("none", "all")
          .doc(
              "What reads without the API token show (/api/services…, /api/incidents, /api/silences"
                  + " and a public status page): none hides DOWN reasons (they name hosts, ports and"
                  + " response values), silence reasons and authors, and who acknowledged; all shows"
                  + " everything. With the token every read shows everything.");
  public static final Setting<Duration> STATUS_PAGE_REFRESH =
      Setting.duration("VIGIL_MONITOR_STATUS_REFRESH", "30s")
          .range("1s", "1h")
          .doc("How often an open status page fetches fresh content (without reloading).");
  public static final Setting<Duration> STATUS_ROLLUP_INTERVAL =
      Setting.duration("VIGIL_MONITOR_STATUS_ROLLUP_INTERVAL", "30s")
          .range("1s", "1h")
          .doc("How often check history is summed into the hourly uptime and latency buckets.");

  public static final Setting<Duration> ANNOUNCE_INTERVAL =
      Setting.duration("VIGIL_MONITOR_ANNOUNCE_INTERVAL", "10s")
          .range("100ms", "10m")
          .doc(
              "How often the announcer writes what is due without a new result: the FAILED of an"
                  + " incident opened while quiet once the quiet period ends, and REMINDERs.");

  public static final Setting<Integer> REPLAY_MAX_ROWS =
      Setting.integer("VIGIL_MONITOR_REPLAY_MAX_ROWS", 1_000_000)
          .range("1", "100000000")
          .doc(
              "Largest replay accepted (outbox rows one replay may select); a larger selection is"
                  + " refused, naming its size.");
  public static final Setting<Integer> REPLAY_CHUNK_ROWS =
      Setting.integer("VIGIL_MONITOR_REPLAY_CHUNK_ROWS", 1000)
          .range("1", "50000")
          .doc(
              "Outbox rows a replay publishes per transaction: one Kafka transaction each at an"
                  + " exactly-once relay, so keep a chunk well within"
                  + " VIGIL_RELAY_TRANSACTION_TIMEOUT.");

  /** Every setting of the monitor, in README order. */
  public static final ConfigDef DEFINITION =
      ConfigDef.of(
              DB_URL,
              DB_USER,
              DB_PASSWORD,
              DB_POOL_SIZE.doc("Database connections (recording, claims, API)."),
              HTTP_PORT.doc("API port; 0 picks a free port."),
              API_TOKEN,
              TARGETS_FILE,
              INSTANCE_ID,
              LOCATION,
              SCHEDULER_ENABLED,
              LEASE,
              CLAIM_BATCH,
              CLAIM_POLL_INTERVAL,
              MAX_IN_FLIGHT,
              RECORD_BATCH,
              RECORD_WORKERS,
              HISTORY_RETENTION,
              OUTBOX_RETENTION,
              RETENTION_BATCH,
              RETENTION_INTERVAL,
              HEARTBEAT_GRACE,
              STATUS_PAGE_ACCESS,
              PUBLIC_DETAILS,
              STATUS_PAGE_REFRESH,
              STATUS_ROLLUP_INTERVAL,
              ANNOUNCE_INTERVAL,
              REPLAY_MAX_ROWS,
              REPLAY_CHUNK_ROWS)
          .with(TracingSettings::addTo);

  /**
   * Reads and validates every setting, once.
   *
   * @throws dev.vigil.kit.ConfigException listing every missing or invalid key
   */
  public MonitorConfig(Settings settings) {
    super(DEFINITION, settings);
  }

  /** The targets file, or null when none is configured. */
  public Path targetsFile() {
    String file = get(TARGETS_FILE);
    return file == null ? null : Path.of(file);
  }
}
