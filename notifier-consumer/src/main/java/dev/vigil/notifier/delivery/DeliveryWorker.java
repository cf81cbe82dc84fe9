package dev.vigil.notifier.delivery;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One delivery loop: claim a batch of heads (distinct services), send them concurrently outside any
 * transaction, record all outcomes in one transaction. Sleeps only when nothing is due.
 */
final class DeliveryWorker implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(DeliveryWorker.class);

  private final DeliveryStore store;
  private final WebhookSender sender;
  private final DeliveryMetrics metrics;
  private final Delivery.Options options;
  private volatile boolean running = true;

  DeliveryWorker(
      DeliveryStore store,
      WebhookSender sender,
      DeliveryMetrics metrics,
      Delivery.Options options) {
    this.store = store;
    this.sender = sender;
    this.metrics = metrics;
    this.options = options;
  }

  void stop() {
    running = false;
  }

  @Override
  public void run() {
    long idleNanos = options.pollInterval().toNanos();
    while (running && !Thread.currentThread().isInterrupted()) {
      try {
        if (round() == 0) {
          LockSupport.parkNanos(idleNanos);
        }
      } catch (RuntimeException e) {
        log.warn("event=delivery_round_failed error=\"{}\"", e.getMessage());
        LockSupport.parkNanos(Math.max(idleNanos, Duration.ofSeconds(1).toNanos()));
      }
    }
  }

  /** One claim-send-record round; returns how many receipts were claimed. */
  int round() {
    List<Claim> claims = store.claim(options.batchSize(), options.lease());
    if (claims.isEmpty()) {
      return 0;
    }
    List<CompletableFuture<DeliveryStore.Result>> pending = new ArrayList<>(claims.size());
    for (Claim claim : claims) {
      if (claim.attempts() > options.maxAttempts()) {
        // The previous holder died during the final attempt: no attempt budget left.
        pending.add(
            CompletableFuture.completedFuture(
                new DeliveryStore.Result(
                    claim,
                    DeliveryStore.Result.Kind.DEAD,
                    0,
                    "attempts exhausted (lease expired during the final attempt)",
                    null)));
        continue;
      }
      long started = System.nanoTime();
      pending.add(sender.send(claim).thenApply(outcome -> decide(claim, outcome, started)));
    }
    List<DeliveryStore.Result> results = new ArrayList<>(claims.size());
    for (CompletableFuture<DeliveryStore.Result> future : pending) {
      results.add(future.join());
    }
    Set<UUID> refused = store.record(results);
    Instant now = Instant.now();
    for (DeliveryStore.Result result : results) {
      report(result, refused.contains(result.claim().eventId()), now);
    }
    return claims.size();
  }

  private DeliveryStore.Result decide(Claim claim, Outcome outcome, long startedNanos) {
    metrics.requestTook(System.nanoTime() - startedNanos);
    return switch (outcome) {
      case Outcome.Delivered d ->
          new DeliveryStore.Result(
              claim, DeliveryStore.Result.Kind.DELIVERED, d.status(), null, null);
      case Outcome.Permanent p ->
          new DeliveryStore.Result(
              claim, DeliveryStore.Result.Kind.DEAD, p.status(), p.error(), null);
      case Outcome.Retryable r when claim.attempts() >= options.maxAttempts() ->
          new DeliveryStore.Result(
              claim,
              DeliveryStore.Result.Kind.DEAD,
              r.status(),
              "max attempts (" + options.maxAttempts() + ") reached, last: " + r.error(),
              null);
      case Outcome.Retryable r ->
          new DeliveryStore.Result(
              claim,
              DeliveryStore.Result.Kind.RETRY,
              r.status(),
              r.error(),
              options.backoff().delay(claim.attempts(), r.retryAfter()));
    };
  }

  private void report(DeliveryStore.Result result, boolean refused, Instant now) {
    Claim claim = result.claim();
    if (refused) {
      metrics.attempt("lease_lost");
      log.warn(
          "event=delivery_result_refused service={} event_id={} attempt={} outcome={}"
              + " reason=\"token no longer holds (lease expired and reclaimed)\"",
          claim.service(),
          claim.eventId(),
          claim.attempts(),
          result.kind());
      return;
    }
    switch (result.kind()) {
      case DELIVERED -> {
        metrics.attempt("delivered");
        metrics.delivered(Duration.between(claim.receivedAt(), now));
        log.debug(
            "event=delivered service={} event_id={} kind={} attempt={} status={}",
            claim.service(),
            claim.eventId(),
            claim.kind(),
            claim.attempts(),
            result.status());
      }
      case RETRY -> {
        metrics.attempt("retry");
        log.info(
            "event=delivery_retry service={} event_id={} attempt={} status={} retry_in_ms={}"
                + " error=\"{}\"",
            claim.service(),
            claim.eventId(),
            claim.attempts(),
            result.status(),
            result.delay().toMillis(),
            result.error());
      }
      case DEAD -> {
        metrics.attempt("dead");
        log.warn(
            "event=delivery_dead service={} event_id={} attempt={} status={} error=\"{}\""
                + " (service blocked until replay or skip)",
            claim.service(),
            claim.eventId(),
            claim.attempts(),
            result.status(),
            result.error());
      }
    }
  }
}
