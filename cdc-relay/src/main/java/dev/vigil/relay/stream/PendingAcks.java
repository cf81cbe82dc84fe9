package dev.vigil.relay.stream;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.BiFunction;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The sends a publisher still waits for, and what the relay's health reads from them: how long the
 * batch in flight has waited for Kafka, why Kafka last refused to take a record of it, and whether
 * this run has relayed a batch. One instance per publisher, shared by both delivery modes.
 *
 * <p>The sends are touched by the engine thread only; the three readings are read by the supervisor
 * and {@code /health} from other threads.
 */
final class PendingAcks {
  private final Runnable onFirstBatch;
  private final List<Future<RecordMetadata>> futures = new ArrayList<>();
  private final List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
  private volatile long waitingSinceNanos;
  private volatile String reason;
  private volatile boolean failed;
  private volatile boolean relayedABatch;

  /**
   * @param onFirstBatch run once, after the first batch of the run was relayed
   */
  PendingAcks(Runnable onFirstBatch) {
    this.onFirstBatch = onFirstBatch;
  }

  /**
   * A batch starts: the clock runs from now, before the first send, because a send blocked before
   * it reached the producer's buffer (no metadata while the broker is down) waits for Kafka too.
   */
  void batchStarted() {
    waitingSinceNanos = System.nanoTime();
  }

  /**
   * The batch is done without a failure: what it sent was acknowledged (or, exactly-once, waits in
   * the open transaction for the commit of a later batch, whose clock runs then).
   */
  void batchEnded() {
    waitingSinceNanos = 0;
    reason = null;
    failed = false;
  }

  /**
   * The batch failed: its records are still not in Kafka, so the clock keeps running until the run
   * ends, with the failure as the reason. The engine may take long to stop after a failure (with
   * the broker down, its last offset commit waits for Kafka too), and health must not read "nothing
   * pending" meanwhile.
   */
  void batchFailed(Throwable failure) {
    reason = failure.getClass().getSimpleName() + ": " + failure.getMessage();
    failed = true;
  }

  /** Kafka did not take a record for {@code why}; it is tried again. */
  void notAccepted(String why) {
    reason = why;
  }

  void add(ProducerRecord<byte[], byte[]> record, Future<RecordMetadata> send) {
    records.add(record);
    futures.add(send);
  }

  boolean isEmpty() {
    return futures.isEmpty();
  }

  /**
   * Waits for every send added since the last {@link #clear()}, in the order they were sent.
   *
   * @param failure the exception to throw for a send that failed, given its record and its cause
   */
  void awaitAll(BiFunction<ProducerRecord<byte[], byte[]>, Throwable, RuntimeException> failure)
      throws InterruptedException {
    for (int i = 0; i < futures.size(); i++) {
      try {
        futures.get(i).get();
      } catch (ExecutionException e) {
        throw failure.apply(records.get(i), e.getCause());
      }
    }
  }

  /** Forgets the sends (acknowledged, or abandoned with their transaction). */
  void clear() {
    futures.clear();
    records.clear();
  }

  /** Kafka acknowledged a whole batch: the first time in this run, says so. */
  void batchRelayed() {
    if (!relayedABatch) {
      relayedABatch = true;
      onFirstBatch.run();
    }
  }

  /** How long the batch in flight has been waiting for Kafka (0 = none is). */
  Duration pendingAck() {
    long since = waitingSinceNanos;
    return since == 0 ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - since);
  }

  /** Whether the batch in flight failed: the run is ending and restarts from committed offsets. */
  boolean batchHasFailed() {
    return failed;
  }

  /** Kafka's last reason for not taking a record of the batch in flight, or null. */
  String pendingReason() {
    return reason;
  }

  boolean relayedABatch() {
    return relayedABatch;
  }
}
