package dev.vigil.notifier;

import static dev.vigil.notifier.NotifierConfig.ADMIN_TOKEN;
import static dev.vigil.notifier.NotifierConfig.BACKOFF_INITIAL;
import static dev.vigil.notifier.NotifierConfig.BACKOFF_MAX;
import static dev.vigil.notifier.NotifierConfig.BATCH_SIZE;
import static dev.vigil.notifier.NotifierConfig.CONNECT_TIMEOUT;
import static dev.vigil.notifier.NotifierConfig.GROUP_ID;
import static dev.vigil.notifier.NotifierConfig.LEASE;
import static dev.vigil.notifier.NotifierConfig.MAX_ATTEMPTS;
import static dev.vigil.notifier.NotifierConfig.POLL_INTERVAL;
import static dev.vigil.notifier.NotifierConfig.READ_TIMEOUT;
import static dev.vigil.notifier.NotifierConfig.RECEIPT_RETENTION;
import static dev.vigil.notifier.NotifierConfig.RETRY_AFTER_MAX;
import static dev.vigil.notifier.NotifierConfig.START_LOOKBACK;
import static dev.vigil.notifier.NotifierConfig.WORKERS;

import dev.vigil.kit.db.Database;
import dev.vigil.notifier.api.HttpApi;
import dev.vigil.notifier.delivery.Delivery;
import dev.vigil.notifier.delivery.DeliveryOptions;
import dev.vigil.notifier.intake.ReceiptConsumer;
import dev.vigil.notifier.intake.ReceiptRetention;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running notifier: database (migrated), delivery workers, receipt retention, Kafka intake and
 * the HTTP API. Several instances may share the database and the consumer group; see {@link
 * Delivery} and {@link ReceiptConsumer} for the ordering and idempotency guarantees.
 */
public final class NotifierService implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NotifierService.class);
  private static final Duration RETENTION_INTERVAL = Duration.ofMinutes(10);
  private static final int RETENTION_BATCH = 1000;

  private final Deque<AutoCloseable> parts;
  private final HttpApi api;

  private NotifierService(Deque<AutoCloseable> parts, HttpApi api) {
    this.parts = parts;
    this.api = api;
  }

  /** Builds and starts every part; on failure, closes what was started and rethrows. */
  public static NotifierService start(NotifierConfig config) {
    Deque<AutoCloseable> parts = new ArrayDeque<>();
    try {
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      parts.push(registry::close);
      Database database =
          Database.open(
              config.database(
                  config.get(WORKERS) + 4,
                  "notifier",
                  "classpath:db/notifier",
                  "flyway_notifier_history"));
      parts.push(database);
      Delivery delivery =
          new Delivery(
              database,
              config.routes(),
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
              registry);
      delivery.start();
      parts.push(delivery);
      ReceiptRetention retention =
          new ReceiptRetention(
              database,
              Clock.systemUTC(),
              config.get(RECEIPT_RETENTION),
              RETENTION_BATCH,
              registry);
      retention.start(RETENTION_INTERVAL);
      parts.push(retention);
      ReceiptConsumer intake =
          new ReceiptConsumer(
              database,
              new ReceiptConsumer.Options(
                  config.kafkaBootstrapServers(),
                  config.topic(),
                  config.get(GROUP_ID),
                  config.get(START_LOOKBACK)),
              registry,
              delivery::wake);
      intake.start();
      parts.push(intake);
      HttpApi api =
          new HttpApi(
              config.httpPort(),
              database,
              registry,
              config.get(ADMIN_TOKEN),
              intake::problem,
              delivery::wake);
      parts.push(api);
      log.info("event=notifier_started port={} config={}", api.port(), config);
      return new NotifierService(parts, api);
    } catch (RuntimeException e) {
      RuntimeException failure = closeAll(parts);
      if (failure != null) {
        e.addSuppressed(failure);
      }
      throw e;
    }
  }

  /** The HTTP port actually bound. */
  public int httpPort() {
    return api.port();
  }

  /** Stops intake and workers, then the API and the pool; keeps the first failure. */
  @Override
  public void close() {
    RuntimeException failure = closeAll(parts);
    log.info("event=notifier_stopped");
    if (failure != null) {
      throw failure;
    }
  }

  private static RuntimeException closeAll(Deque<AutoCloseable> parts) {
    RuntimeException first = null;
    while (!parts.isEmpty()) {
      try {
        parts.pop().close();
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        if (first == null) {
          first = new IllegalStateException("closing the notifier failed", e);
        } else {
          first.addSuppressed(e);
        }
      }
    }
    return first;
  }
}
