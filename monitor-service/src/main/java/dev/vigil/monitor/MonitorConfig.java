package dev.vigil.monitor;

import dev.vigil.kit.Setting;
import dev.vigil.kit.Settings;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Everything the monitor reads from its environment. Secrets (database password, API token) are
 * never shown by {@link #toString()}.
 *
 * @param dbUrl JDBC URL of the monitor database
 * @param dbUser database user
 * @param dbPassword database password (may be empty)
 * @param dbPoolSize connections for recording, claiming and the API
 * @param httpPort API port; 0 picks a free one
 * @param apiToken bearer token for mutating API calls
 * @param targetsFile YAML targets file loaded at startup, or null
 * @param instanceId lease owner name of this instance
 * @param schedulerEnabled whether this instance probes (false: API and pushed results only)
 * @param lease minimum probe lease; a dead instance's targets are taken over after it
 * @param claimBatch most targets claimed per statement
 * @param claimPollInterval pause between claims when nothing more is due
 * @param maxInFlight most concurrent probes on this instance
 * @param historyRetention check history older than this is deleted
 * @param outboxRetention outbox rows older than this are deleted (the relay streams them from the
 *     WAL long before)
 * @param retentionBatch rows deleted per retention transaction
 * @param retentionInterval pause between retention runs
 * @param heartbeatGrace time allowed beyond a push target's heartbeat before a missed heartbeat is
 *     recorded as DOWN
 */
public record MonitorConfig(
    String dbUrl,
    String dbUser,
    String dbPassword,
    int dbPoolSize,
    int httpPort,
    String apiToken,
    Path targetsFile,
    String instanceId,
    boolean schedulerEnabled,
    Duration lease,
    int claimBatch,
    Duration claimPollInterval,
    int maxInFlight,
    Duration historyRetention,
    Duration outboxRetention,
    int retentionBatch,
    Duration retentionInterval,
    Duration heartbeatGrace) {

  static final Setting<String> DB_URL =
      Setting.string("VIGIL_DB_URL", null, "JDBC URL of the monitor database.");
  static final Setting<String> DB_USER = Setting.string("VIGIL_DB_USER", "vigil", "Database user.");
  static final Setting<String> DB_PASSWORD =
      Setting.secret("VIGIL_DB_PASSWORD", "", "Database password (empty for none).");
  static final Setting<Integer> DB_POOL_SIZE =
      Setting.integer(
          "VIGIL_DB_POOL_SIZE", 10, 2, 200, "Database connections (recording, claims, API).");
  static final Setting<Integer> HTTP_PORT =
      Setting.integer("VIGIL_HTTP_PORT", 8080, 0, 65535, "API port; 0 picks a free port.");
  static final Setting<String> API_TOKEN =
      Setting.secret(
          "VIGIL_API_TOKEN", null, "Bearer token required by mutating API calls (secret).");
  static final Setting<String> TARGETS_FILE =
      Setting.string(
          "VIGIL_TARGETS_FILE", "", "YAML file of targets loaded into the database at startup.");
  static final Setting<String> INSTANCE_ID =
      Setting.string(
          "VIGIL_INSTANCE_ID", "", "Lease owner name; default: host name, pid and a random part.");
  static final Setting<Boolean> SCHEDULER_ENABLED =
      Setting.bool("VIGIL_SCHEDULER_ENABLED", true, "Whether this instance probes targets.");
  static final Setting<Duration> LEASE =
      Setting.duration(
          "VIGIL_LEASE_DURATION",
          "30s",
          Duration.ofSeconds(1),
          Duration.ofMinutes(10),
          "Minimum probe lease; a crashed instance's targets are taken over after it expires.");
  static final Setting<Integer> CLAIM_BATCH =
      Setting.integer("VIGIL_CLAIM_BATCH", 200, 1, 5000, "Most targets claimed per statement.");
  static final Setting<Duration> CLAIM_POLL_INTERVAL =
      Setting.duration(
          "VIGIL_CLAIM_POLL_INTERVAL",
          "200ms",
          Duration.ofMillis(10),
          Duration.ofSeconds(10),
          "Pause between claims when no more targets are due.");
  static final Setting<Integer> MAX_IN_FLIGHT =
      Setting.integer(
          "VIGIL_MAX_IN_FLIGHT", 2000, 1, 20000, "Most concurrent probes on this instance.");
  static final Setting<Duration> HISTORY_RETENTION =
      Setting.duration(
          "VIGIL_HISTORY_RETENTION",
          "168h",
          Duration.ofMinutes(1),
          Duration.ofDays(3650),
          "Check history older than this is deleted.");
  static final Setting<Duration> OUTBOX_RETENTION =
      Setting.duration(
          "VIGIL_OUTBOX_RETENTION",
          "168h",
          Duration.ofMinutes(1),
          Duration.ofDays(3650),
          "Outbox rows older than this are deleted; the relay streams them from the WAL, so this"
              + " only bounds how long they can be looked up in the table.");
  static final Setting<Integer> RETENTION_BATCH =
      Setting.integer(
          "VIGIL_RETENTION_BATCH", 1000, 10, 100_000, "Rows deleted per retention transaction.");
  static final Setting<Duration> RETENTION_INTERVAL =
      Setting.duration(
          "VIGIL_RETENTION_INTERVAL",
          "5m",
          Duration.ofSeconds(1),
          Duration.ofHours(24),
          "Pause between retention runs.");

  static final Setting<Duration> HEARTBEAT_GRACE =
      Setting.duration(
          "VIGIL_HEARTBEAT_GRACE",
          "30s",
          Duration.ZERO,
          Duration.ofHours(1),
          "Time allowed beyond a push target's heartbeat before the monitor records it DOWN.");

  /** Every setting of the monitor, for the configuration reference. */
  public static final List<Setting<?>> SETTINGS =
      List.of(
          DB_URL,
          DB_USER,
          DB_PASSWORD,
          DB_POOL_SIZE,
          HTTP_PORT,
          API_TOKEN,
          TARGETS_FILE,
          INSTANCE_ID,
          SCHEDULER_ENABLED,
          LEASE,
          CLAIM_BATCH,
          CLAIM_POLL_INTERVAL,
          MAX_IN_FLIGHT,
          HISTORY_RETENTION,
          OUTBOX_RETENTION,
          RETENTION_BATCH,
          RETENTION_INTERVAL,
          HEARTBEAT_GRACE);

  public MonitorConfig {
    Objects.requireNonNull(dbUrl, "dbUrl is required");
    Objects.requireNonNull(dbUser, "dbUser is required");
    dbPassword = dbPassword == null ? "" : dbPassword;
    if (apiToken == null || apiToken.length() < 8) {
      throw new IllegalArgumentException("apiToken must be at least 8 characters");
    }
    if (instanceId == null || instanceId.isBlank()) {
      instanceId = defaultInstanceId();
    }
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(claimPollInterval, "claimPollInterval");
    Objects.requireNonNull(historyRetention, "historyRetention");
    Objects.requireNonNull(outboxRetention, "outboxRetention");
    Objects.requireNonNull(retentionInterval, "retentionInterval");
    Objects.requireNonNull(heartbeatGrace, "heartbeatGrace");
    if (httpPort < 0 || httpPort > 65535) {
      throw new IllegalArgumentException("httpPort must be 0-65535");
    }
  }

  /**
   * Reads every setting; all problems are reported together.
   *
   * @throws dev.vigil.kit.ConfigException naming each bad key
   */
  public static MonitorConfig from(Settings settings) {
    String dbUrl = settings.get(DB_URL);
    String dbUser = settings.get(DB_USER);
    String dbPassword = settings.get(DB_PASSWORD);
    Integer pool = settings.get(DB_POOL_SIZE);
    Integer port = settings.get(HTTP_PORT);
    String token = settings.get(API_TOKEN);
    String targets = settings.get(TARGETS_FILE);
    String instance = settings.get(INSTANCE_ID);
    Boolean scheduler = settings.get(SCHEDULER_ENABLED);
    Duration lease = settings.get(LEASE);
    Integer batch = settings.get(CLAIM_BATCH);
    Duration poll = settings.get(CLAIM_POLL_INTERVAL);
    Integer inFlight = settings.get(MAX_IN_FLIGHT);
    Duration retention = settings.get(HISTORY_RETENTION);
    Duration outboxRetention = settings.get(OUTBOX_RETENTION);
    Integer retentionBatch = settings.get(RETENTION_BATCH);
    Duration retentionInterval = settings.get(RETENTION_INTERVAL);
    Duration heartbeatGrace = settings.get(HEARTBEAT_GRACE);
    if (token != null && token.length() < 8) {
      settings.problem(API_TOKEN.key() + " must be at least 8 characters");
    }
    settings.validate();
    return new MonitorConfig(
        dbUrl,
        dbUser,
        dbPassword,
        pool,
        port,
        token,
        targets == null ? null : Path.of(targets),
        instance,
        scheduler,
        lease,
        batch,
        poll,
        inFlight,
        retention,
        outboxRetention,
        retentionBatch,
        retentionInterval,
        heartbeatGrace);
  }

  private static String defaultInstanceId() {
    return ManagementFactory.getRuntimeMXBean().getName().replace('@', '-')
        + "-"
        + UUID.randomUUID().toString().substring(0, 8);
  }

  @Override
  public String toString() {
    return "MonitorConfig[dbUrl="
        + dbUrl
        + ", dbUser="
        + dbUser
        + ", dbPassword=<secret>, dbPoolSize="
        + dbPoolSize
        + ", httpPort="
        + httpPort
        + ", apiToken=<secret>, targetsFile="
        + targetsFile
        + ", instanceId="
        + instanceId
        + ", schedulerEnabled="
        + schedulerEnabled
        + ", lease="
        + lease
        + ", claimBatch="
        + claimBatch
        + ", claimPollInterval="
        + claimPollInterval
        + ", maxInFlight="
        + maxInFlight
        + ", historyRetention="
        + historyRetention
        + ", outboxRetention="
        + outboxRetention
        + ", retentionBatch="
        + retentionBatch
        + ", retentionInterval="
        + retentionInterval
        + ", heartbeatGrace="
        + heartbeatGrace
        + "]";
  }
}
