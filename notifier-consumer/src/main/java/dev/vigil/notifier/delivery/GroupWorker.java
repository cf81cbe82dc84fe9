package dev.vigil.notifier.delivery;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.notifier.channel.GroupChannel;
import dev.vigil.notifier.channel.GroupMessage;
import dev.vigil.notifier.channel.GroupState;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the grouped messages of one channel, one at a time (a channel that groups sends at most one
 * message per {@code interval} anyway): claims the next due message (see {@link GroupStore}),
 * builds it from the group's state and the transitions it carries, sends it, records the outcome. A
 * message is sent outside any transaction; its receipts and the group stay leased meanwhile.
 */
final class GroupWorker implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(GroupWorker.class);
  private static final Duration MIN_POLL = Duration.ofMillis(50);
  private static final Duration MAX_POLL = Duration.ofSeconds(1);

  private final GroupStore store;
  private final GroupChannel channel;
  private final WebhookSender sender;
  private final DeliveryMetrics metrics;
  private final DeliveryOptions options;
  private final Semaphore wakeUps = new Semaphore(0);
  private volatile boolean running = true;

  GroupWorker(
      GroupStore store,
      GroupChannel channel,
      WebhookSender sender,
      DeliveryMetrics metrics,
      DeliveryOptions options) {
    this.store = store;
    this.channel = channel;
    this.sender = sender;
    this.metrics = metrics;
    this.options = options;
  }

  void stop() {
    running = false;
    wakeUps.release();
  }

  /** New receipts: look for a due message now rather than after the poll interval. */
  void wake() {
    if (wakeUps.availablePermits() == 0) {
      wakeUps.release();
    }
  }

  @Override
  public void run() {
    Duration poll = clamp(options.pollInterval());
    while (running) {
      try {
        if (!step()) {
          if (wakeUps.tryAcquire(poll.toNanos(), TimeUnit.NANOSECONDS)) {
            wakeUps.drainPermits();
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        // the claim (if any) stays leased: after the lease its message is sent again, unchanged
        LOG.warn("group round failed channel={} error=\"{}\"", store.channel(), e.getMessage());
        try {
          Thread.sleep(Duration.ofSeconds(1));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** Sends one due message; false when none was due. */
  boolean step() throws InterruptedException {
    Optional<GroupStore.GroupClaim> claimed = store.claim(options.lease());
    if (claimed.isEmpty()) {
      return false;
    }
    GroupStore.GroupClaim claim = claimed.get();
    List<AlertEvent> events =
        claim.events().stream()
            .map(c -> AlertEventJson.read(c.payload().getBytes(StandardCharsets.UTF_8)))
            .toList();
    GroupState.Step step =
        claim.state().apply(claim.groupId(), claim.ordinal(), events, store.settings().max());
    int attempts = claim.events().stream().mapToInt(Claim::attempts).max().orElse(1);
    long started = System.nanoTime();
    Outcome outcome = send(step.message());
    if (!(outcome instanceof Outcome.NotSent)) {
      metrics.requestTook(System.nanoTime() - started);
    }
    GroupStore.Result result = decide(outcome, attempts);
    boolean recorded = store.record(claim, result, step.next());
    report(claim, result, recorded, attempts);
    return true;
  }

  /**
   * Sends {@code message} and waits for its outcome: at most the connect timeout and two read
   * timeouts (a mail's SMTP session has a read and a write timeout after connecting), plus a
   * margin, so that a send still within its own timeouts is not given up on and sent again.
   */
  private Outcome send(GroupMessage message) throws InterruptedException {
    Duration bound =
        options.connectTimeout().plus(options.readTimeout().multipliedBy(2)).plusSeconds(5);
    try {
      return sender.send(channel, message).get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      return new Outcome.Retryable(0, "internal: " + e, null);
    }
  }

  private GroupStore.Result decide(Outcome outcome, int attempts) {
    return switch (outcome) {
      case Outcome.Delivered d ->
          new GroupStore.Result(GroupStore.Result.Kind.SENT, d.status(), null, null);
      case Outcome.NotSent n ->
          new GroupStore.Result(GroupStore.Result.Kind.NOT_SENT, 0, n.reason(), null);
      case Outcome.Permanent p ->
          new GroupStore.Result(GroupStore.Result.Kind.DEAD, p.status(), p.error(), null);
      case Outcome.Retryable r when r.status() == 429 && store.throttles() ->
          new GroupStore.Result(
              GroupStore.Result.Kind.THROTTLED,
              429,
              "rate limited by the receiver (HTTP 429), not counted as an attempt",
              options.backoff().delay(1, r.retryAfter()));
      case Outcome.Retryable r when attempts >= options.maxAttempts() ->
          new GroupStore.Result(
              GroupStore.Result.Kind.DEAD,
              r.status(),
              "max attempts (" + options.maxAttempts() + ") reached, last: " + r.error(),
              null);
      case Outcome.Retryable r ->
          new GroupStore.Result(
              GroupStore.Result.Kind.RETRY,
              r.status(),
              r.error(),
              options.backoff().delay(attempts, r.retryAfter()));
    };
  }

  private void report(
      GroupStore.GroupClaim claim, GroupStore.Result result, boolean recorded, int attempts) {
    String name = store.channel();
    if (!recorded) {
      metrics.attempt("lease_lost", name);
      LOG.warn(
          "group message result refused channel={} group_id={} message={} outcome={}"
              + " reason=\"token no longer holds (lease expired and reclaimed)\"",
          name,
          claim.groupId(),
          claim.messageSeq(),
          result.kind());
      return;
    }
    String outcome =
        switch (result.kind()) {
          case SENT -> "delivered";
          case NOT_SENT -> "not_sent";
          case RETRY -> "retry";
          case THROTTLED -> "throttled";
          case DEAD -> "dead";
        };
    metrics.attempt(outcome, name);
    if (result.kind() == GroupStore.Result.Kind.SENT) {
      Instant now = Instant.now();
      claim.events().forEach(c -> metrics.delivered(Duration.between(c.receivedAt(), now)));
    }
    LOG.info(
        "group message channel={} group_id={} message={} events={} attempt={} outcome={} status={}"
            + " error=\"{}\"",
        name,
        claim.groupId(),
        claim.messageSeq(),
        claim.events().size(),
        attempts,
        outcome,
        result.status(),
        result.error());
  }

  private static Duration clamp(Duration poll) {
    return poll.compareTo(MIN_POLL) < 0 ? MIN_POLL : poll.compareTo(MAX_POLL) > 0 ? MAX_POLL : poll;
  }
}
