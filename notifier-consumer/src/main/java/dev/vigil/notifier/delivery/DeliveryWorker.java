package dev.vigil.notifier.delivery;

import dev.vigil.contract.AlertKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One delivery pipeline: keeps up to {@code batchSize} requests in flight, each for a different
 * service's head of line, sent concurrently outside any transaction. Completed requests are
 * recorded together in one transaction, which also claims the next receipt of each delivered
 * service, so a service's backlog flows back to back. New work is claimed whenever there is room;
 * the worker sleeps only when nothing is due and nothing is in flight.
 */
final class DeliveryWorker implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(DeliveryWorker.class);
  private static final DeliveryStore.Result WAKE_UP =
      new DeliveryStore.Result(null, null, 0, null, null);

  private final DeliveryStore store;
  private final WebhookSender sender;
  private final DeliveryMetrics metrics;
  private final DeliveryOptions options;
  private final BlockingQueue<DeliveryStore.Result> completed = new LinkedBlockingQueue<>();
  private volatile boolean running = true;
  private int inFlight;
  private long nextClaimNanos;

  DeliveryWorker(
      DeliveryStore store, WebhookSender sender, DeliveryMetrics metrics, DeliveryOptions options) {
    this.store = store;
    this.sender = sender;
    this.metrics = metrics;
    this.options = options;
  }

  void stop() {
    running = false;
    wake();
  }

  /** Makes an idle worker look for due work now. */
  void wake() {
    completed.offer(WAKE_UP);
  }

  @Override
  public void run() {
    while (running) {
      try {
        step();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        LOG.warn("delivery round failed in_flight={} error=\"{}\"", inFlight, e.getMessage());
        nextClaimNanos =
            System.nanoTime() + Math.max(options.pollInterval().toNanos(), 1_000_000_000L);
        if (!pause(Duration.ofSeconds(1))) {
          return;
        }
      }
    }
    drainInFlight();
  }

  private void step() throws InterruptedException {
    List<DeliveryStore.Result> done = new ArrayList<>();
    completed.drainTo(done);
    boolean woken = done.removeIf(result -> result == WAKE_UP);
    if (!done.isEmpty()) {
      record(done);
    }
    int room = options.batchSize() - inFlight;
    if (room > 0 && (woken || System.nanoTime() - nextClaimNanos >= 0)) {
      List<Claim> claims = store.claim(room, options.lease());
      dispatch(claims);
      if (claims.size() < room) {
        // nothing more is due right now: look again after the poll interval or a wake-up
        nextClaimNanos = System.nanoTime() + options.pollInterval().toNanos();
      }
      if (!claims.isEmpty()) {
        return;
      }
    }
    if (done.isEmpty()) {
      long waitNanos =
          inFlight < options.batchSize()
              ? Math.max(0, nextClaimNanos - System.nanoTime())
              : options.pollInterval().toNanos();
      DeliveryStore.Result first =
          completed.poll(Math.max(waitNanos, 100_000), TimeUnit.NANOSECONDS);
      if (first != null) {
        completed.offer(first);
      }
    }
  }

  /** Results that finished while a failure interrupted recording are recorded on the way out. */
  private void drainInFlight() {
    long deadline = System.nanoTime() + options.readTimeout().plusSeconds(1).toNanos();
    List<DeliveryStore.Result> done = new ArrayList<>();
    while (inFlight > 0 && System.nanoTime() < deadline) {
      try {
        DeliveryStore.Result result = completed.poll(100, TimeUnit.MILLISECONDS);
        if (result != null && result != WAKE_UP) {
          done.add(result);
          inFlight--;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (!done.isEmpty()) {
      try {
        Set<UUID> refused = store.record(done);
        Instant now = Instant.now();
        done.forEach(result -> report(result, refused.contains(result.claim().token()), now));
      } catch (RuntimeException e) {
        LOG.warn(
            "delivery results lost on stop count={} (leases expire, receipts are retried)"
                + " error=\"{}\"",
            done.size(),
            e.getMessage());
      }
    }
  }

  private void record(List<DeliveryStore.Result> done) {
    DeliveryStore.Recorded recorded;
    try {
      recorded = store.record(done, options.batchSize(), options.lease());
    } catch (RuntimeException e) {
      // the claims stay leased; they are retried once the lease ends (receivers de-duplicate)
      inFlight -= done.size();
      throw e;
    }
    inFlight -= done.size();
    Instant now = Instant.now();
    for (DeliveryStore.Result result : done) {
      report(result, recorded.refused().contains(result.claim().token()), now);
    }
    dispatch(recorded.next());
  }

  private void dispatch(List<Claim> claims) {
    for (Claim claim : claims) {
      inFlight++;
      if (claim.attempts() > options.maxAttempts()) {
        // The previous holder died during the final attempt: no attempt budget left.
        completed.offer(
            new DeliveryStore.Result(
                claim,
                giveUp(claim),
                0,
                "attempts exhausted (lease expired during the final attempt)",
                null));
        continue;
      }
      long started = System.nanoTime();
      sender
          .send(claim)
          .thenApply(outcome -> decide(claim, outcome, started))
          .whenComplete(
              (result, failure) ->
                  completed.offer(
                      failure == null
                          ? result
                          : new DeliveryStore.Result(
                              claim,
                              DeliveryStore.Result.Kind.RETRY,
                              0,
                              "internal: " + failure,
                              options.backoff().delay(claim.attempts(), null))));
    }
  }

  /** Sleeps after a failure; false when interrupted (interrupt flag restored). */
  private static boolean pause(Duration duration) {
    try {
      Thread.sleep(duration);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private DeliveryStore.Result decide(Claim claim, Outcome outcome, long startedNanos) {
    metrics.requestTook(System.nanoTime() - startedNanos);
    return switch (outcome) {
      case Outcome.Delivered d ->
          new DeliveryStore.Result(
              claim, DeliveryStore.Result.Kind.DELIVERED, d.status(), null, null);
      case Outcome.NotSent n ->
          // status 0 on a delivered result records it as SKIPPED by the channel
          new DeliveryStore.Result(claim, DeliveryStore.Result.Kind.DELIVERED, 0, n.reason(), null);
      case Outcome.Permanent p ->
          new DeliveryStore.Result(claim, giveUp(claim), p.status(), p.error(), null);
      case Outcome.Retryable r when r.status() == 429 && store.throttles(claim.channel()) ->
          // the endpoint's limit, not a failure: its bucket waits out Retry-After for every
          // delivery and instance, and this attempt is not counted
          new DeliveryStore.Result(
              claim,
              DeliveryStore.Result.Kind.THROTTLED,
              429,
              "rate limited by the receiver (HTTP 429), not counted as an attempt",
              options.backoff().delay(1, r.retryAfter()));
      case Outcome.Retryable r when claim.attempts() >= options.maxAttempts() ->
          new DeliveryStore.Result(
              claim,
              giveUp(claim),
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

  /**
   * How a delivery that cannot succeed ends: a REMINDER is parked (it repeats what its FAILED said,
   * and must not hold back the RECOVERED behind it); anything else is dead and blocks its service
   * on this channel until an operator replays or skips it.
   */
  private static DeliveryStore.Result.Kind giveUp(Claim claim) {
    return AlertKind.REMINDER.name().equals(claim.kind())
        ? DeliveryStore.Result.Kind.PARKED
        : DeliveryStore.Result.Kind.DEAD;
  }

  private void report(DeliveryStore.Result result, boolean refused, Instant now) {
    Claim claim = result.claim();
    if (refused) {
      metrics.attempt("lease_lost", claim.channel());
      LOG.warn(
          "delivery result refused service={} channel={} event_id={} attempt={} outcome={}"
              + " reason=\"token no longer holds (lease expired and reclaimed)\"",
          claim.service(),
          claim.channel(),
          claim.eventId(),
          claim.attempts(),
          result.kind());
      return;
    }
    if (result.kind() == DeliveryStore.Result.Kind.DELIVERED && result.status() == 0) {
      metrics.attempt("not_sent", claim.channel());
      LOG.debug(
          "delivery skipped by channel service={} channel={} event_id={} kind={} reason=\"{}\"",
          claim.service(),
          claim.channel(),
          claim.eventId(),
          claim.kind(),
          result.error());
      return;
    }
    switch (result.kind()) {
      case DELIVERED -> {
        metrics.attempt("delivered", claim.channel());
        metrics.delivered(Duration.between(claim.receivedAt(), now));
        LOG.debug(
            "delivered service={} channel={} event_id={} kind={} attempt={} status={}",
            claim.service(),
            claim.channel(),
            claim.eventId(),
            claim.kind(),
            claim.attempts(),
            result.status());
      }
      case THROTTLED -> {
        metrics.attempt("throttled", claim.channel());
        LOG.info(
            "delivery throttled service={} channel={} event_id={} status=429 retry_in_ms={}"
                + " (the channel's endpoint waits; attempt not counted)",
            claim.service(),
            claim.channel(),
            claim.eventId(),
            result.delay().toMillis());
      }
      case RETRY -> {
        metrics.attempt("retry", claim.channel());
        LOG.info(
            "delivery retry service={} channel={} event_id={} attempt={} status={} retry_in_ms={}"
                + " error=\"{}\"",
            claim.service(),
            claim.channel(),
            claim.eventId(),
            claim.attempts(),
            result.status(),
            result.delay().toMillis(),
            result.error());
      }
      case PARKED -> {
        metrics.attempt("parked", claim.channel());
        LOG.warn(
            "reminder parked service={} channel={} event_id={} attempt={} status={} error=\"{}\""
                + " (undeliverable; the service is not blocked)",
            claim.service(),
            claim.channel(),
            claim.eventId(),
            claim.attempts(),
            result.status(),
            result.error());
      }
      case DEAD -> {
        metrics.attempt("dead", claim.channel());
        LOG.warn(
            "delivery dead service={} channel={} event_id={} attempt={} status={} error=\"{}\""
                + " (service blocked on this channel until replay or skip)",
            claim.service(),
            claim.channel(),
            claim.eventId(),
            claim.attempts(),
            result.status(),
            result.error());
      }
    }
  }
}
