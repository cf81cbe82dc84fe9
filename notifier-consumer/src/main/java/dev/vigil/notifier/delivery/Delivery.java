package dev.vigil.notifier.delivery;

import dev.vigil.kit.db.Database;
import dev.vigil.kit.tracing.Tracing;
import dev.vigil.notifier.channel.ChannelRoutes;
import dev.vigil.notifier.channel.GroupChannel;
import dev.vigil.notifier.channel.GroupSettings;
import dev.vigil.notifier.channel.WebhookChannel;
import dev.vigil.notifier.webhook.WebhookRoutes;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The delivery side of one notifier instance: {@code workers} threads working off receipts.
 *
 * <p>Guarantees (across any number of workers and instances sharing the database): per service and
 * channel, events are delivered strictly in receipt order and at most one is in flight; a failing
 * or dead delivery blocks only its own service on its own channel; a receipt is retried with
 * exponential backoff and jitter (honouring Retry-After up to a bound) until delivered, a permanent
 * failure, or {@code maxAttempts}, then parked as dead until an operator replays or skips it.
 * Delivery is at-least-once: a crash between the send and recording it re-sends the same event id,
 * which receivers de-duplicate ({@code Idempotency-Key}, {@code webhook-id}).
 *
 * <p>Channels that group (Slack, PagerDuty and email unless turned off) are sent by one {@link
 * GroupWorker} each: the transitions that arrive together go out in one message, later ones in one
 * update per interval, with the same per-service order; a crash between send and record repeats at
 * most that one message (see {@link GroupStore}).
 */
public final class Delivery implements AutoCloseable {
  private final WebhookSender sender;
  private final List<DeliveryWorker> workers = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final DeliveryStore store;
  private final List<GroupWorker> groupWorkers = new ArrayList<>();
  private final RateLimitStore groupBuckets;
  private volatile DeliveryStore.Backlog backlog = new DeliveryStore.Backlog(0, 0, null);
  private volatile long backlogReadAt;

  /** Every event to the signed webhook of {@code routes}. */
  public Delivery(
      Database database, WebhookRoutes routes, DeliveryOptions options, MeterRegistry registry) {
    this(
        database,
        ChannelRoutes.webhookOnly(new WebhookChannel(routes, Clock.systemUTC())),
        options,
        registry);
  }

  /**
   * Delivers to every channel of {@code channels}; each (event, channel) row has its own order,
   * retries and dead state, so one failing channel holds back only its own deliveries.
   */
  public Delivery(
      Database database, ChannelRoutes channels, DeliveryOptions options, MeterRegistry registry) {
    this(database, channels, options, registry, Tracing.none());
  }

  /** As above, each delivery attempt in a span of {@code tracing}'s (see {@link WebhookSender}). */
  public Delivery(
      Database database,
      ChannelRoutes channels,
      DeliveryOptions options,
      MeterRegistry registry,
      Tracing tracing) {
    List<String> single = new ArrayList<>(channels.names());
    single.removeAll(channels.groups().keySet());
    this.store = new DeliveryStore(database, single, channels.limits());
    this.sender =
        new WebhookSender(
            channels.channels(),
            options.connectTimeout(),
            options.readTimeout(),
            options.workers() * options.batchSize(),
            tracing);
    DeliveryMetrics metrics = new DeliveryMetrics(registry, channels.names());
    for (Map.Entry<String, GroupSettings> group : channels.groups().entrySet()) {
      String name = group.getKey();
      GroupChannel channel = (GroupChannel) channels.channels().get(name);
      GroupStore groupStore =
          new GroupStore(
              database, name, group.getValue(), channels.limits().get(name), channel.nameBudget());
      GroupWorker worker = new GroupWorker(groupStore, channel, sender, metrics, options);
      groupWorkers.add(worker);
      threads.add(new Thread(worker, "notifier-group-" + name));
    }
    groupBuckets =
        new RateLimitStore(database, new Buckets(channels.groups().keySet(), channels.limits()));
    for (int i = 0; i < options.workers(); i++) {
      DeliveryWorker worker = new DeliveryWorker(store, sender, metrics, options);
      workers.add(worker);
      threads.add(new Thread(worker, "notifier-delivery-" + i));
    }
    Gauge.builder("vigil.notifier.pending", this, d -> d.backlog().pending())
        .description("Receipts not yet delivered (excluding dead)")
        .register(registry);
    Gauge.builder("vigil.notifier.dead", this, d -> d.backlog().dead())
        .description("Dead deliveries blocking their service")
        .register(registry);
    Gauge.builder(
            "vigil.notifier.oldest.pending.age.seconds",
            this,
            d -> {
              var oldest = d.backlog().oldestPending();
              return oldest == null
                  ? 0
                  : Duration.between(oldest.toInstant(), Instant.now()).toMillis() / 1000.0;
            })
        .description("Age of the oldest pending receipt")
        .register(registry);
  }

  public void start() {
    store.registerBuckets();
    groupBuckets.register();
    threads.forEach(Thread::start);
  }

  /** Wakes idle workers (new receipts or an operator replay). */
  public void wake() {
    store.nudge();
    workers.forEach(DeliveryWorker::wake);
    groupWorkers.forEach(GroupWorker::wake);
  }

  private DeliveryStore.Backlog backlog() {
    long now = System.nanoTime();
    if (now - backlogReadAt > 1_000_000_000L) {
      try {
        backlog = store.backlog();
        backlogReadAt = now;
      } catch (RuntimeException e) {
        // keep the last known value; /health reports the database separately
      }
    }
    return backlog;
  }

  @Override
  public void close() {
    workers.forEach(DeliveryWorker::stop);
    groupWorkers.forEach(GroupWorker::stop);
    for (Thread thread : threads) {
      try {
        thread.join(15_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    sender.close();
  }
}
