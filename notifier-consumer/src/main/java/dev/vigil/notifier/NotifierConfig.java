package dev.vigil.notifier;

import static dev.vigil.kit.CommonSettings.DB_PASSWORD;
import static dev.vigil.kit.CommonSettings.DB_URL;
import static dev.vigil.kit.CommonSettings.DB_USER;
import static dev.vigil.kit.CommonSettings.HTTP_PORT;
import static dev.vigil.kit.CommonSettings.INSTANCE_ID;
import static dev.vigil.kit.CommonSettings.KAFKA_BOOTSTRAP_SERVERS;
import static dev.vigil.kit.CommonSettings.TOPIC;
import static dev.vigil.kit.CommonSettings.WEBHOOK_SECRETS;

import dev.vigil.contract.webhook.WebhookSecret;
import dev.vigil.kit.ConfigDef;
import dev.vigil.kit.ConfigException;
import dev.vigil.kit.ServiceConfig;
import dev.vigil.kit.Setting;
import dev.vigil.kit.Settings;
import dev.vigil.kit.kafka.KafkaClientProperties;
import dev.vigil.kit.kafka.KafkaSettings;
import dev.vigil.kit.tracing.TracingSettings;
import dev.vigil.notifier.channel.ChannelRoutes;
import dev.vigil.notifier.channel.ChannelRoutesFile;
import dev.vigil.notifier.channel.PublicLinks;
import dev.vigil.notifier.channel.WebhookChannel;
import dev.vigil.notifier.webhook.WebhookRoute;
import dev.vigil.notifier.webhook.WebhookRoutes;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * Everything the notifier needs, validated once; the route table is built here so that a bad route
 * stops startup. Secrets and tokens never appear in {@link #toString()}.
 */
public final class NotifierConfig extends ServiceConfig {
  public static final Setting<String> GROUP_ID =
      Setting.string("VIGIL_NOTIFIER_GROUP_ID", "vigil-notifier").doc("Kafka consumer group id.");
  public static final Setting<String> WEBHOOK_URL =
      Setting.string("VIGIL_WEBHOOK_URL", null).doc("Default webhook URL (https unless allowed).");
  public static final Setting<String> WEBHOOK_TOKEN =
      Setting.secret("VIGIL_WEBHOOK_TOKEN", "").doc("Bearer token for the default webhook.");
  public static final Setting<Boolean> WEBHOOK_ALLOW_HTTP =
      Setting.bool("VIGIL_WEBHOOK_ALLOW_HTTP", false).doc("Allow plain-http URLs (local use).");
  public static final Setting<String> WEBHOOK_ROUTES =
      Setting.string("VIGIL_WEBHOOK_ROUTES", "")
          .doc("Extra routes 'svc=url;prefix*=url secrets=env:NAME token=file:PATH'.");
  public static final Setting<Duration> CONNECT_TIMEOUT =
      Setting.duration("VIGIL_WEBHOOK_CONNECT_TIMEOUT", "2s")
          .range("1ms", "1m")
          .doc("Connect timeout.");
  public static final Setting<Duration> READ_TIMEOUT =
      Setting.duration("VIGIL_WEBHOOK_READ_TIMEOUT", "5s")
          .range("1ms", "5m")
          .doc("Total time for one request: connecting, sending and the complete response.");
  public static final Setting<String> ADMIN_TOKEN =
      Setting.secret("VIGIL_NOTIFIER_ADMIN_TOKEN", "")
          .doc("Bearer token for /admin; empty disables the admin API.");
  public static final Setting<Integer> WORKERS =
      Setting.integer("VIGIL_NOTIFIER_WORKERS", 8)
          .range("1", "64")
          .doc(
              "Delivery worker threads, each claiming, sending and recording its own batches; the"
                  + " database pool holds this many connections plus 4.");
  public static final Setting<Integer> BATCH_SIZE =
      Setting.integer("VIGIL_NOTIFIER_BATCH_SIZE", 32)
          .range("1", "1000")
          .doc("Requests one worker keeps in flight.");
  public static final Setting<Integer> MAX_ATTEMPTS =
      Setting.integer("VIGIL_NOTIFIER_MAX_ATTEMPTS", 5)
          .range("1", "100")
          .doc("Attempts before a delivery is dead.");
  public static final Setting<Duration> BACKOFF_INITIAL =
      Setting.duration("VIGIL_NOTIFIER_BACKOFF_INITIAL", "1s")
          .range("1ms", "24h")
          .doc("First retry delay (doubles).");
  public static final Setting<Duration> BACKOFF_MAX =
      Setting.duration("VIGIL_NOTIFIER_BACKOFF_MAX", "5m")
          .range("1ms", "24h")
          .doc("Largest retry delay.");
  public static final Setting<Duration> RETRY_AFTER_MAX =
      Setting.duration("VIGIL_NOTIFIER_RETRY_AFTER_MAX", "10m")
          .range("1ms", "24h")
          .doc("Largest Retry-After honoured.");
  public static final Setting<Duration> LEASE =
      Setting.duration("VIGIL_NOTIFIER_LEASE", "30s").range("100ms", "24h").doc("Claim lease.");
  public static final Setting<Duration> POLL_INTERVAL =
      Setting.duration("VIGIL_NOTIFIER_POLL_INTERVAL", "200ms")
          .range("1ms", "1m")
          .doc("Idle worker poll interval.");
  public static final Setting<Duration> RECEIPT_RETENTION =
      Setting.duration("VIGIL_NOTIFIER_RECEIPT_RETENTION", "720h")
          .range("1m", "87600h")
          .doc(
              "Delivered or skipped receipts older than this are deleted. Keep it longer than the"
                  + " topic's retention: an event read again after its receipt is gone is"
                  + " delivered again.");

  public static final Setting<String> ROUTES_FILE =
      Setting.string("VIGIL_NOTIFIER_ROUTES_FILE", "")
          .doc(
              "YAML or JSON file of channels (pagerduty, slack, alertmanager,"
                  + " alertmanager-webhook, email) and routes; empty: every event to the signed webhook.");
  public static final Setting<String> ROUTES =
      Setting.string("VIGIL_NOTIFIER_ROUTES", "")
          .doc("The same channels and routes inline (YAML or JSON), when no file is set.");
  public static final Setting<String> PAGERDUTY_ROUTING_KEY =
      Setting.secret("VIGIL_PAGERDUTY_ROUTING_KEY", "")
          .doc("Routing key of PagerDuty channels that name none themselves.");
  public static final Setting<String> PUBLIC_URL =
      Setting.string("VIGIL_NOTIFIER_PUBLIC_URL", "")
          .doc("The monitor's public base URL: links to its status page and API in alerts.");

  public static final Setting<Duration> HEARTBEAT =
      Setting.duration("VIGIL_NOTIFIER_HEARTBEAT", "5s")
          .range("100ms", "1m")
          .doc(
              "How often the instance advertises its channels and routes in the database; it counts"
                  + " as running until three heartbeats are missed.");
  public static final Setting<Duration> ROUTE_MEMORY =
      Setting.duration("VIGIL_NOTIFIER_ROUTE_MEMORY", "5m")
          .range("0s", "24h")
          .doc(
              "Every instance's intake applies the routes of its peers too, and of peers stopped no"
                  + " longer ago than this, so a restart of the only instance with a channel loses"
                  + " none of its deliveries (they wait for it).");

  public static final Setting<Duration> START_LOOKBACK =
      Setting.duration("VIGIL_NOTIFIER_START_LOOKBACK", "1h")
          .range("0s", "87600h")
          .doc("Without committed offsets, start at records at most this old; skip older ones.");

  private static final long MAX_ROUTES_BYTES = 1024 * 1024;

  /** Every setting of the notifier, in README order, and the rules that tie several together. */
  public static final ConfigDef DEFINITION =
      ConfigDef.of(
              DB_URL,
              DB_USER,
              DB_PASSWORD,
              HTTP_PORT.withDefault("8083").doc("Port for /health, /metrics and /admin; 0 = any."),
              INSTANCE_ID,
              KAFKA_BOOTSTRAP_SERVERS,
              TOPIC,
              GROUP_ID,
              START_LOOKBACK,
              WEBHOOK_URL,
              WEBHOOK_SECRETS,
              WEBHOOK_TOKEN,
              WEBHOOK_ALLOW_HTTP,
              WEBHOOK_ROUTES,
              ROUTES_FILE,
              ROUTES,
              PAGERDUTY_ROUTING_KEY,
              PUBLIC_URL,
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
              HEARTBEAT,
              ROUTE_MEMORY,
              RECEIPT_RETENTION)
          .rule(
              "%s must exceed %s + %s, or a slow request could be sent twice at once"
                  .formatted(LEASE, CONNECT_TIMEOUT, READ_TIMEOUT),
              v -> v.get(LEASE).compareTo(v.get(CONNECT_TIMEOUT).plus(v.get(READ_TIMEOUT))) > 0)
          .rule(
              BACKOFF_MAX + " must be >= " + BACKOFF_INITIAL,
              v -> v.get(BACKOFF_MAX).compareTo(v.get(BACKOFF_INITIAL)) >= 0)
          .with(KafkaSettings::addTo)
          .with(TracingSettings::addTo);

  private final WebhookRoutes routes;
  private final ChannelRoutes channels;
  private final KafkaClientProperties kafkaClient;

  /** Reads every setting, then the routes; a {@link ConfigException} names each bad key. */
  public NotifierConfig(Settings settings) {
    super(DEFINITION, settings);
    kafkaClient = KafkaClientProperties.of(this);
    try {
      boolean allowHttp = get(WEBHOOK_ALLOW_HTTP);
      WebhookRoute defaultRoute =
          new WebhookRoute(
              "*",
              URI.create(get(WEBHOOK_URL)),
              get(WEBHOOK_TOKEN),
              WebhookSecret.parseList(webhookSecrets()),
              allowHttp);
      routes = WebhookRoutes.parse(defaultRoute, get(WEBHOOK_ROUTES), settings::raw, allowHttp);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("webhook configuration is invalid: " + e.getMessage());
    }
    channels = channels(settings);
  }

  private ChannelRoutes channels(Settings settings) {
    WebhookChannel webhook = new WebhookChannel(routes, Clock.systemUTC());
    String file = blankIfNull(get(ROUTES_FILE));
    String inline = blankIfNull(get(ROUTES));
    if (!file.isBlank() && !inline.isBlank()) {
      throw new ConfigException("set " + ROUTES_FILE.key() + " or " + ROUTES.key() + ", not both");
    }
    if (file.isBlank() && inline.isBlank()) {
      return ChannelRoutes.webhookOnly(webhook);
    }
    String source = file.isBlank() ? ROUTES.key() : ROUTES_FILE.key() + " " + file;
    try {
      PublicLinks links;
      try {
        links = PublicLinks.of(blankIfNull(get(PUBLIC_URL)));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(PUBLIC_URL.key() + ": " + e.getMessage());
      }
      String text = file.isBlank() ? inline : read(Path.of(file));
      return ChannelRoutesFile.parse(
          text,
          webhook,
          new ChannelRoutesFile.Context(
              settings::raw,
              get(WEBHOOK_ALLOW_HTTP),
              blankIfNull(get(PAGERDUTY_ROUTING_KEY)),
              links));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(source + ": " + e.getMessage());
    }
  }

  private static String blankIfNull(String value) {
    return value == null ? "" : value;
  }

  private static String read(Path file) {
    try {
      if (Files.size(file) > MAX_ROUTES_BYTES) {
        throw new IllegalArgumentException("larger than " + MAX_ROUTES_BYTES + " bytes");
      }
      return Files.readString(file);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot be read: " + e.getClass().getSimpleName());
    }
  }

  /** The channels and the routes that pick them (only the signed webhook without a routes file). */
  public ChannelRoutes channels() {
    return channels;
  }

  /** Security and pass-through properties for every Kafka client of the notifier. */
  public KafkaClientProperties kafkaClient() {
    return kafkaClient;
  }

  /** The default route and the routes of {@code VIGIL_WEBHOOK_ROUTES}. */
  public WebhookRoutes routes() {
    return routes;
  }
}
