package dev.vigil.relay;

import static dev.vigil.relay.config.RelayConfig.LEASE;
import static dev.vigil.relay.config.RelayConfig.MAX_RETRY_BACKOFF;
import static dev.vigil.relay.config.RelayConfig.SLOT;
import static dev.vigil.relay.config.RelayConfig.STANDBY_POLL_INTERVAL;
import static dev.vigil.relay.config.RelayConfig.TRANSACTION_TIMEOUT;

import dev.vigil.kit.ClientFailures;
import dev.vigil.kit.backoff.ExponentialBackoff;
import dev.vigil.relay.config.RelayConfig;
import dev.vigil.relay.ops.RelayMetrics;
import dev.vigil.relay.ops.RelayStatus;
import dev.vigil.relay.standby.LeaderLock;
import dev.vigil.relay.stream.LargeTransactions;
import dev.vigil.relay.stream.OffsetsAheadException;
import dev.vigil.relay.stream.OutboxStream;
import dev.vigil.relay.stream.RelayFencedException;
import dev.vigil.relay.stream.RelaySchema;
import dev.vigil.relay.stream.SlotMissingException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves one relay instance between standby, streaming and failing, on its own thread.
 *
 * <p>Loop: take the advisory lock (else stay standby and try again), prepare the database, run the
 * engine until it fails, the lock's connection is lost, or the relay is stopped; then release the
 * lock. Failures (database or Kafka unreachable, engine errors) are retried with exponential
 * backoff up to {@code VIGIL_RELAY_MAX_RETRY_BACKOFF}; every restart resumes from the stored
 * offsets. A missing slot with stored offsets is fatal: the loop ends and {@link #terminated()}
 * completes exceptionally. So is being fenced with exactly-once delivery ({@link
 * RelayFencedException}): a newer relay on the same slot took over, and this one stops for good
 * with the reason in its status instead of fencing it back.
 *
 * <p>After a failure the instance stays {@code failing}, with the failure's reason, until a new run
 * has relayed a batch and kept streaming for {@link #RECOVERY_CONFIRMATION}: a failure that repeats
 * at every restart (Kafka refusing a record for good) shows as failing all along instead of
 * flapping through {@code streaming}, and its restarts back off up to the maximum. A batch that
 * waits for Kafka longer than {@link #KAFKA_STALL} (including a send not even accepted by the
 * producer, e.g. no metadata while the broker is down) shows as failing with Kafka's last error,
 * and as streaming again once it is acknowledged.
 */
final class Supervisor implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(Supervisor.class);
  private static final Duration INITIAL_BACKOFF = Duration.ofMillis(500);
  private static final Duration WATCH_INTERVAL = Duration.ofMillis(500);
  private static final Duration KAFKA_STALL = Duration.ofSeconds(10);
  private static final Duration RECOVERY_CONFIRMATION = Duration.ofSeconds(10);
  private static final Duration TAKEOVER_RETRY = Duration.ofMillis(100);

  private final RelayConfig config;
  private final RelayStatus status;
  private final RelayMetrics metrics;
  private final LeaderLock lock;
  private final LargeTransactions large;
  private final CountDownLatch stopSignal = new CountDownLatch(1);
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private volatile String lastFailure;
  private boolean migrated;

  Supervisor(RelayConfig config, RelayStatus status, RelayMetrics metrics) {
    this.config = config;
    this.status = status;
    this.metrics = metrics;
    this.lock =
        new LeaderLock(
            config.dbUrl(),
            config.connectionProperties(),
            config.get(SLOT),
            config.instanceId(),
            config.get(LEASE));
    this.large = new LargeTransactions(config.get(TRANSACTION_TIMEOUT));
  }

  /** Completes when the loop ended: normally after {@link #stop()}, exceptionally when fatal. */
  CompletableFuture<Void> terminated() {
    return terminated;
  }

  /** Asks the loop to finish: the running engine stops gracefully and the lock is released. */
  void stop() {
    stopSignal.countDown();
  }

  @Override
  public void run() {
    Duration max = config.get(MAX_RETRY_BACKOFF);
    ExponentialBackoff backoff =
        new ExponentialBackoff(INITIAL_BACKOFF.compareTo(max) > 0 ? max : INITIAL_BACKOFF, max);
    Duration retryIn = max;
    try {
      while (!stopping()) {
        AtomicBoolean streamed = new AtomicBoolean();
        boolean acquired = false;
        RuntimeException fatal = null;
        try {
          if (!migrated) {
            new RelaySchema(config).migrate(); // the lease's table
            migrated = true;
          }
          acquired = lock.tryAcquire();
          if (!acquired) {
            // Keep the lock's connection open between attempts: a standby polls cheaply.
            lastFailure = null; // the active instance reports its own state
            status.standby("another instance holds the lock of slot " + config.get(SLOT));
            // A holder whose lease expired is frozen or cut off: its sessions are ended, and the
            // lock is free as soon as the server has ended them.
            pause(lock.takeOverExpired() ? TAKEOVER_RETRY : config.get(STANDBY_POLL_INTERVAL));
            continue;
          }
          status.active(true);
          if (lastFailure == null) {
            status.standby("lock acquired, preparing");
          }
          new RelaySchema(config).prepare();
          streamOnce(streamed);
        } catch (SlotMissingException | OffsetsAheadException e) {
          LOG.error("relay refuses to start reason=\"{}\"", e.getMessage());
          status.failing(e.getMessage());
          fatal = e;
        } catch (RelayFencedException e) {
          LOG.error(
              "relay stopped for good instance={} slot={} reason=\"{}\"",
              config.instanceId(),
              config.get(SLOT),
              e.getMessage());
          status.failing(e.getMessage());
          fatal = e;
        } catch (SQLException | RuntimeException | ExecutionException e) {
          String reason = reason(e);
          if (streamed.get()) {
            backoff.reset();
          }
          retryIn = backoff.next();
          LOG.warn("relay run failed, retrying in {} reason={}", retryIn, reason);
          lastFailure = reason;
          status.failing(reason + "; retrying with backoff, nothing is skipped");
        } finally {
          if (acquired) {
            status.active(false);
            lock.close();
          }
        }
        if (fatal != null) {
          // Only now, with the lock released: whoever waits for the end may take over at once.
          terminated.completeExceptionally(fatal);
          return;
        }
        if (stopping()) {
          break;
        }
        pause(retryIn);
      }
      lock.close();
      status.standby("stopped");
      terminated.complete(null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      lock.close();
      terminated.complete(null);
    } catch (Throwable t) {
      terminated.completeExceptionally(t);
      throw t;
    }
  }

  private void streamOnce(AtomicBoolean streamed) throws InterruptedException, ExecutionException {
    try (OutboxStream stream =
        OutboxStream.start(
            config,
            metrics,
            large,
            () -> {
              if (lastFailure == null) {
                status.streaming();
              }
            },
            () -> {
              // Already reported as streaming when the task started, unless recovering.
              if (lastFailure == null) {
                streamed.set(true);
              }
            })) {
      long runStarted = System.nanoTime();
      boolean stalled = false;
      while (!stopping()) {
        try {
          stream.completion().get(WATCH_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
          throw new IllegalStateException("engine stopped unexpectedly");
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RelayFencedException fenced) {
            throw fenced; // final: a newer relay owns the slot
          }
          throw e;
        } catch (TimeoutException stillRunning) {
          if (!lock.isHeld()) {
            throw new IllegalStateException(
                "lost the lock (its database connection, or the lease: another relay took over)");
          }
          if (lastFailure != null
              && stream.relayedABatch()
              && Duration.ofNanos(System.nanoTime() - runStarted).compareTo(RECOVERY_CONFIRMATION)
                  > 0) {
            // The failure did not come back: this run is healthy.
            lastFailure = null;
            streamed.set(true);
            status.streaming();
          }
          String largeTransaction = large.describe();
          status.largeTransaction(largeTransaction);
          Duration pending = stream.pendingKafkaAck();
          if (largeTransaction != null && large.overdue()) {
            stalled = true;
            status.failing(largeTransaction);
          } else if (pending.compareTo(KAFKA_STALL) > 0) {
            stalled = true;
            String kafkaError = stream.pendingKafkaReason();
            status.failing(
                stream.pendingBatchFailed()
                    ? "the current batch failed ("
                        + kafkaError
                        + "); the relay restarts from the committed offsets once its engine has"
                        + " stopped, nothing is skipped"
                    : "Kafka has not acknowledged the current batch for over "
                        + KAFKA_STALL.toSeconds()
                        + " s"
                        + (kafkaError == null ? "" : " (last error: " + kafkaError + ")")
                        + "; still retrying, nothing is skipped");
          } else if (stalled && streamed.get()) {
            stalled = false;
            status.streaming();
          }
        }
      }
      LOG.info("relay stopping slot={}", config.get(SLOT));
    } finally {
      status.largeTransaction(null);
    }
  }

  private boolean stopping() {
    return stopSignal.getCount() == 0;
  }

  private void pause(Duration duration) throws InterruptedException {
    stopSignal.await(duration.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static String reason(Throwable e) {
    Throwable root = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
    String message = root.getMessage();
    String text = root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    String hint = ClientFailures.hint(e);
    return hint == null ? text : hint + " (" + text + ")";
  }
}
