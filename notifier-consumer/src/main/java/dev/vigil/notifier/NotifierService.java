package dev.vigil.notifier;

import static dev.vigil.notifier.NotifierConfig.ADMIN_TOKEN;
import static dev.vigil.notifier.NotifierConfig.BACKOFF_INITIAL;
import static dev.vigil.notifier.NotifierConfig.BACKOFF_MAX;
import static dev.vigil.notifier.NotifierConfig.BATCH_SIZE;
import static dev.vigil.notifier.NotifierConfig.CONNECT_TIMEOUT;
import static dev.vigil.notifier.NotifierConfig.GROUP_ID;
import static dev.vigil.notifier.NotifierConfig.HEARTBEAT;
import static dev.vigil.notifier.NotifierConfig.LEASE;
import static dev.vigil.notifier.NotifierConfig.MAX_ATTEMPTS;
import static dev.vigil.notifier.NotifierConfig.POLL_INTERVAL;
import static dev.vigil.notifier.NotifierConfig.READ_TIMEOUT;
import static dev.vigil.notifier.NotifierConfig.RECEIPT_RETENTION;
import static dev.vigil.notifier.NotifierConfig.RETRY_AFTER_MAX;
import static dev.vigil.notifier.NotifierConfig.ROUTE_MEMORY;
import static dev.vigil.notifier.NotifierConfig.START_LOOKBACK;
import static dev.vigil.notifier.NotifierConfig.WORKERS;

import dev.vigil.kit.db.Database;
import dev.vigil.kit.lifecycle.Closer;
import dev.vigil.kit.lifecycle.StartClock;
import dev.vigil.kit.metrics.ServiceMetrics;
import dev.vigil.kit.tracing.Tracing;
import dev.vigil.notifier.api.ChannelViews;
import dev.vigil.notifier.api.HttpApi;
import dev.vigil.notifier.delivery.Delivery;
import dev.vigil.notifier.delivery.DeliveryOptions;
import dev.vigil.notifier.instances.InstanceRegistry;
import dev.vigil.notifier.intake.ReceiptConsumer;
import dev.vigil.notifier.intake.ReceiptRetention;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running notifier: database (migrated), delivery workers, receipt retention, Kafka intake and
 * the HTTP API. Several instances may share the database and the consumer group; see {@link
 * Delivery} and {@link ReceiptConsumer} for the ordering and idempotency guarantees.
 */
public final class NotifierService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NotifierService.class);
  private static final Duration RETENTION_INTERVAL = Duration.ofMinutes(10);
  private static final int RETENTION_BATCH = 1000;

  private final Closer parts;
  private final HttpApi api;

  private NotifierService(Closer parts, HttpApi api) {
    this.parts = parts;
    this.api = api;
  }

  /** Builds and starts every part; on failure, closes what was started and rethrows. */
  public static NotifierService start(NotifierConfig config) {
    return start(config, null);
  }

  /**
   * Starts with {@code given} (kept and closed by the caller) for the spans of deliveries; null: a
   * tracer of the service's own, from {@code VIGIL_TRACING_*}.
   */
  public static NotifierService start(NotifierConfig config, Tracing given) {
    StartClock startClock = new StartClock();
    Closer parts = new Closer("notifier");
    try {
      // Registered first, so it runs last: after every part has stopped.
      parts.add("stopped log", () -> LOG.info("notifier stopped"));
      // Closed after delivery: it exports the spans delivery ended.
      Tracing tracing =
          given != null ? given : parts.add("tracing", Tracing.start("vigil-notifier", config));
      ServiceMetrics metrics = parts.add("metrics", ServiceMetrics.create("notifier"));
      MeterRegistry registry = metrics.registry();
      Database database =
          Database.open(
              config.database(
                  config.get(WORKERS) + 4,
                  "notifier",
                  "classpath:db/notifier",
                  "flyway_notifier_history"));
      parts.add(database);
      startClock.step("database");
      metrics.bindPool(database.dataSource());
      // Started before delivery and intake, closed after them: peers see this instance's channels
      // while it claims, and the intake applies the peers' routes from its first record.
      InstanceRegistry instances =
          new InstanceRegistry(
                  database,
                  config.instanceId(),
                  config.channels(),
                  config.get(HEARTBEAT),
                  config.get(ROUTE_MEMORY),
                  registry)
              .start();
      parts.add(instances);
      startClock.step("instances");
      Delivery delivery =
          new Delivery(
              database,
              config.channels(),
              DeliveryOptions.builder()
                  .workers(config.get(WORKERS))
                  .batchSize(config.get(BATCH_SIZE))
                  .maxAttempts(config.get(MAX_ATTEMPTS))
                  .lease(config.get(LEASE))
                  .pollInterval(config.get(POLL_INTERVAL))
                  .connectTimeout(config.get(CONNECT_TIMEOUT))
                  .readTimeout(config.get(READ_TIMEOUT))
                  .backoff(config.get(BACKOFF_INITIAL), config.get(BACKOFF_MAX))
                  .retryAfterMax(config.get(RETRY_AFTER_MAX))
                  .build(),
              registry,
              tracing);
      delivery.start();
      parts.add(delivery);
      startClock.step("delivery");
      ReceiptRetention retention =
          new ReceiptRetention(
              database,
              Clock.systemUTC(),
              config.get(RECEIPT_RETENTION),
              RETENTION_BATCH,
              registry);
      retention.start(RETENTION_INTERVAL);
      parts.add(retention);
      ReceiptConsumer intake =
          new ReceiptConsumer(
              database,
              new ReceiptConsumer.Options(
                  config.kafkaBootstrapServers(),
                  config.topic(),
                  config.get(GROUP_ID),
                  config.get(START_LOOKBACK),
                  config.kafkaClient().asMap(),
                  instances::channelsFor),
              registry,
              delivery::wake);
      intake.start();
      parts.add(intake);
      startClock.step("intake");
      HttpApi api =
          new HttpApi(
              config.httpPort(),
              database,
              metrics,
              config.get(ADMIN_TOKEN),
              intake::problem,
              delivery::wake,
              new ChannelViews(instances::channels, instances::lastChannels, instances::groups));
      parts.add(api);
      startClock.step("api");
      LOG.info("notifier started port={} {} config={}", api.port(), startClock.summary(), config);
      return new NotifierService(parts, api);
    } catch (RuntimeException e) {
      throw parts.closeAfter(e);
    } catch (Error e) {
      throw parts.closeAfter(e);
    }
  }

  /** The HTTP port actually bound. */
  public int httpPort() {
    return api.port();
  }

  /** Stops intake and workers, then the API and the pool; keeps the first failure. */
  @Override
  public void close() {
    parts.close();
  }
}
