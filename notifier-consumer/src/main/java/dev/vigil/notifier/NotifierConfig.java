package dev.vigil.notifier;

import dev.vigil.contract.AlertTopic;
import dev.vigil.contract.webhook.WebhookSecret;
import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Redact;
import dev.vigil.kit.SecretFile;
import dev.vigil.kit.Setting;
import dev.vigil.kit.Settings;
import dev.vigil.notifier.webhook.WebhookRoute;
import dev.vigil.notifier.webhook.WebhookRoutes;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Everything the notifier needs, typed and validated. Secrets (database password, webhook secrets
 * and tokens, admin token) never appear in {@link #toString()}.
 *
 * @param adminToken bearer token for the admin API; null disables the admin endpoints
 * @param workers delivery worker threads in this instance
 * @param batchSize requests one worker keeps in flight (each a different service's head of line)
 * @param maxAttempts attempts before a delivery is parked as dead
 * @param backoffInitial delay after the first failed attempt; doubles per attempt, with jitter
 * @param backoffMax upper bound of the computed backoff
 * @param retryAfterMax upper bound for a receiver's {@code Retry-After}
 * @param lease how long a claim is exclusive; must exceed connect + read timeout
 * @param pollInterval how often an idle worker looks for due deliveries
 * @param receiptRetention finished receipts older than this are forgotten; must outlast the topic's
 *     retention, or a re-read old event is delivered again
 * @param startLookBack where a partition without committed offset starts: records older than this
 *     (by record timestamp) are skipped, not paged again
 */
public record NotifierConfig(
    String dbUrl,
    String dbUser,
    String dbPassword,
    int httpPort,
    String bootstrapServers,
    String topic,
    String groupId,
    WebhookRoutes routes,
    Duration connectTimeout,
    Duration readTimeout,
    String adminToken,
    int workers,
    int batchSize,
    int maxAttempts,
    Duration backoffInitial,
    Duration backoffMax,
    Duration retryAfterMax,
    Duration lease,
    Duration pollInterval,
    Duration receiptRetention,
    Duration startLookBack) {

  private static final Duration MS = Duration.ofMillis(1);
  private static final Duration DAY = Duration.ofDays(1);

  static final Setting<String> DB_URL =
      Setting.string("VIGIL_DB_URL", null, "JDBC URL of the notifier's PostgreSQL database.");
  static final Setting<String> DB_USER = Setting.string("VIGIL_DB_USER", "vigil", "Database user.");
  static final Setting<String> DB_PASSWORD =
      Setting.secret("VIGIL_DB_PASSWORD", "", "Database password.");
  static final Setting<Integer> HTTP_PORT =
      Setting.integer(
          "VIGIL_HTTP_PORT", 8083, 0, 65535, "Port for /health, /metrics and /admin (0 = any).");
  static final Setting<String> BOOTSTRAP =
      Setting.string("VIGIL_KAFKA_BOOTSTRAP_SERVERS", null, "Kafka bootstrap servers.");
  static final Setting<String> TOPIC =
      Setting.string("VIGIL_TOPIC", AlertTopic.DEFAULT_TOPIC, "Topic of alert events.");
  static final Setting<String> GROUP_ID =
      Setting.string("VIGIL_NOTIFIER_GROUP_ID", "vigil-notifier", "Kafka consumer group id.");
  static final Setting<String> WEBHOOK_URL =
      Setting.string("VIGIL_WEBHOOK_URL", null, "Default webhook URL (https unless allowed).");
  static final Setting<String> WEBHOOK_SECRETS =
      Setting.secret(
          "VIGIL_WEBHOOK_SECRETS",
          "",
          "Signing secrets, whsec_<base64>, comma-separated (several while rotating).");
  static final Setting<String> WEBHOOK_SECRETS_FILE =
      Setting.string(
          "VIGIL_WEBHOOK_SECRETS_FILE", "", "File holding the signing secrets instead of the env.");
  static final Setting<String> WEBHOOK_TOKEN =
      Setting.secret("VIGIL_WEBHOOK_TOKEN", "", "Optional bearer token for the default webhook.");
  static final Setting<String> WEBHOOK_TOKEN_FILE =
      Setting.string("VIGIL_WEBHOOK_TOKEN_FILE", "", "File holding the bearer token.");
  static final Setting<Boolean> ALLOW_HTTP =
      Setting.bool("VIGIL_WEBHOOK_ALLOW_HTTP", false, "Allow plain-http webhook URLs (local use).");
  static final Setting<String> ROUTES =
      Setting.string(
          "VIGIL_WEBHOOK_ROUTES",
          "",
          "Extra routes 'svc=url;prefix*=url secrets=env:NAME token=file:PATH' (see"
              + " WebhookRoutes).");
  static final Setting<Duration> CONNECT_TIMEOUT =
      Setting.duration(
          "VIGIL_WEBHOOK_CONNECT_TIMEOUT", "2s", MS, Duration.ofMinutes(1), "Connect timeout.");
  static final Setting<Duration> READ_TIMEOUT =
      Setting.duration(
          "VIGIL_WEBHOOK_READ_TIMEOUT",
          "5s",
          MS,
          Duration.ofMinutes(5),
          "Total time for one request: connecting, sending and the complete response.");
  static final Setting<String> ADMIN_TOKEN =
      Setting.secret(
          "VIGIL_ADMIN_TOKEN", "", "Bearer token for /admin; empty disables the admin API.");
  static final Setting<Integer> WORKERS =
      Setting.integer("VIGIL_NOTIFIER_WORKERS", 4, 1, 64, "Delivery worker threads.");
  static final Setting<Integer> BATCH_SIZE =
      Setting.integer(
          "VIGIL_NOTIFIER_BATCH_SIZE", 32, 1, 1000, "Requests one worker keeps in flight.");
  static final Setting<Integer> MAX_ATTEMPTS =
      Setting.integer(
          "VIGIL_NOTIFIER_MAX_ATTEMPTS", 5, 1, 100, "Attempts before a delivery is dead.");
  static final Setting<Duration> BACKOFF_INITIAL =
      Setting.duration(
          "VIGIL_NOTIFIER_BACKOFF_INITIAL", "1s", MS, DAY, "First retry delay (doubles).");
  static final Setting<Duration> BACKOFF_MAX =
      Setting.duration("VIGIL_NOTIFIER_BACKOFF_MAX", "5m", MS, DAY, "Largest retry delay.");
  static final Setting<Duration> RETRY_AFTER_MAX =
      Setting.duration(
          "VIGIL_NOTIFIER_RETRY_AFTER_MAX", "10m", MS, DAY, "Largest Retry-After honoured.");
  static final Setting<Duration> LEASE =
      Setting.duration(
          "VIGIL_NOTIFIER_LEASE", "30s", Duration.ofMillis(100), DAY, "Claim lease duration.");
  static final Setting<Duration> POLL_INTERVAL =
      Setting.duration(
          "VIGIL_NOTIFIER_POLL_INTERVAL",
          "200ms",
          MS,
          Duration.ofMinutes(1),
          "Idle worker poll interval.");
  static final Setting<Duration> RECEIPT_RETENTION =
      Setting.duration(
          "VIGIL_NOTIFIER_RECEIPT_RETENTION",
          "720h",
          Duration.ofMinutes(1),
          Duration.ofDays(3650),
          "Delivered or skipped receipts older than this are deleted. Keep it longer than the"
              + " topic's retention: an event read again after its receipt is gone is delivered"
              + " again.");

  static final Setting<Duration> START_LOOKBACK =
      Setting.duration(
          "VIGIL_NOTIFIER_START_LOOKBACK",
          "1h",
          Duration.ZERO,
          Duration.ofDays(3650),
          "Where the consumer group starts on a partition with no committed offset (new group"
              + " name, fresh setup): at records at most this old, by record timestamp. Older"
              + " records are skipped (logged and counted), so alerts long past are not paged"
              + " again; a notifier that was merely down resumes at its committed offsets.");

  /** Every setting the notifier reads. */
  public static final List<Setting<?>> SETTINGS =
      List.of(
          DB_URL,
          DB_USER,
          DB_PASSWORD,
          HTTP_PORT,
          BOOTSTRAP,
          TOPIC,
          GROUP_ID,
          WEBHOOK_URL,
          WEBHOOK_SECRETS,
          WEBHOOK_SECRETS_FILE,
          WEBHOOK_TOKEN,
          WEBHOOK_TOKEN_FILE,
          ALLOW_HTTP,
          ROUTES,
          CONNECT_TIMEOUT,
          READ_TIMEOUT,
          ADMIN_TOKEN,
          WORKERS,
          BATCH_SIZE,
          MAX_ATTEMPTS,
          BACKOFF_INITIAL,
          BACKOFF_MAX,
          RETRY_AFTER_MAX,
          LEASE,
          POLL_INTERVAL,
          RECEIPT_RETENTION,
          START_LOOKBACK);

  public NotifierConfig {
    Objects.requireNonNull(dbUrl, "dbUrl is missing");
    Objects.requireNonNull(bootstrapServers, "bootstrapServers is missing");
    Objects.requireNonNull(routes, "routes are missing");
    Objects.requireNonNull(receiptRetention, "receiptRetention is missing");
    Objects.requireNonNull(startLookBack, "startLookBack is missing");
    if (adminToken != null && adminToken.isBlank()) {
      adminToken = null;
    }
    if (lease.compareTo(connectTimeout.plus(readTimeout)) <= 0) {
      throw new IllegalArgumentException(
          "VIGIL_NOTIFIER_LEASE ("
              + lease
              + ") must exceed connect + read timeout ("
              + connectTimeout.plus(readTimeout)
              + "), or a slow request could be sent twice at once");
    }
    if (backoffMax.compareTo(backoffInitial) < 0) {
      throw new IllegalArgumentException(
          "VIGIL_NOTIFIER_BACKOFF_MAX must be >= VIGIL_NOTIFIER_BACKOFF_INITIAL");
    }
  }

  /**
   * Reads and validates every setting.
   *
   * @throws ConfigException listing every bad key
   */
  public static NotifierConfig from(Settings settings) {
    String dbUrl = settings.get(DB_URL);
    String dbUser = settings.get(DB_USER);
    String dbPassword = orEmpty(settings.get(DB_PASSWORD));
    Integer port = settings.get(HTTP_PORT);
    String bootstrap = settings.get(BOOTSTRAP);
    String topic = settings.get(TOPIC);
    String groupId = settings.get(GROUP_ID);
    String url = settings.get(WEBHOOK_URL);
    String secretsText = orEmpty(settings.get(WEBHOOK_SECRETS));
    String secretsFile = settings.get(WEBHOOK_SECRETS_FILE);
    String token = settings.get(WEBHOOK_TOKEN);
    String tokenFile = settings.get(WEBHOOK_TOKEN_FILE);
    Boolean allowHttp = settings.get(ALLOW_HTTP);
    String routesText = settings.get(ROUTES);
    Duration connect = settings.get(CONNECT_TIMEOUT);
    Duration read = settings.get(READ_TIMEOUT);
    String adminToken = settings.get(ADMIN_TOKEN);
    Integer workers = settings.get(WORKERS);
    Integer batch = settings.get(BATCH_SIZE);
    Integer maxAttempts = settings.get(MAX_ATTEMPTS);
    Duration backoffInitial = settings.get(BACKOFF_INITIAL);
    Duration backoffMax = settings.get(BACKOFF_MAX);
    Duration retryAfterMax = settings.get(RETRY_AFTER_MAX);
    Duration lease = settings.get(LEASE);
    Duration poll = settings.get(POLL_INTERVAL);
    Duration receiptRetention = settings.get(RECEIPT_RETENTION);
    Duration startLookBack = settings.get(START_LOOKBACK);
    settings.validate();

    WebhookRoutes routes = null;
    try {
      if (secretsFile != null) {
        secretsText = SecretFile.read(WEBHOOK_SECRETS_FILE.key(), Path.of(secretsFile));
      }
      if (tokenFile != null) {
        token = SecretFile.read(WEBHOOK_TOKEN_FILE.key(), Path.of(tokenFile));
      }
      List<WebhookSecret> secrets = WebhookSecret.parseList(secretsText);
      if (secrets.isEmpty()) {
        settings.problem(
            WEBHOOK_SECRETS.key() + " (or " + WEBHOOK_SECRETS_FILE.key() + ") is required");
      } else {
        WebhookRoute defaultRoute =
            new WebhookRoute("*", URI.create(url), token, secrets, allowHttp);
        routes =
            WebhookRoutes.parse(
                defaultRoute,
                routesText,
                name -> settings.get(Setting.secret(name, "", "route secret reference")),
                allowHttp);
      }
    } catch (IllegalArgumentException e) {
      settings.problem("webhook configuration is invalid: " + e.getMessage());
    }
    settings.validate();
    try {
      return new NotifierConfig(
          dbUrl,
          dbUser,
          dbPassword,
          port,
          bootstrap,
          topic,
          groupId,
          routes,
          connect,
          read,
          adminToken,
          workers,
          batch,
          maxAttempts,
          backoffInitial,
          backoffMax,
          retryAfterMax,
          lease,
          poll,
          receiptRetention,
          startLookBack);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("invalid configuration: " + e.getMessage());
    }
  }

  private static String orEmpty(String value) {
    return value == null ? "" : value;
  }

  @Override
  public String toString() {
    return "NotifierConfig[db="
        + Redact.withoutQuery(dbUrl)
        + ", topic="
        + topic
        + ", group="
        + groupId
        + ", routes="
        + routes
        + ", workers="
        + workers
        + ", batchSize="
        + batchSize
        + ", maxAttempts="
        + maxAttempts
        + ", lease="
        + lease
        + ", receiptRetention="
        + receiptRetention
        + ", startLookBack="
        + startLookBack
        + ", admin="
        + (adminToken == null ? "disabled" : "enabled")
        + "]";
  }
}
