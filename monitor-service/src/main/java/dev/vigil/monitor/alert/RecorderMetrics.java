package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recorder's meters and its after-commit log line, registered once per {@link Recorder} and
 * touched only by the {@link RecordingTransactions}, which alone knows what was committed.
 */
final class RecorderMetrics {
  // Logged under the recorder's name, like every line of the recording path.
  private static final Logger LOG = LoggerFactory.getLogger(Recorder.class);

  private final Timer transaction;
  private final Counter failedRows;
  private final Counter recoveredRows;
  private final Counter staleResults;
  private final DistributionSummary batchSize;
  private final Counter fallbacks;
  private final Counter savepointRedos;
  private final Counter conflictRedos;

  RecorderMetrics(MeterRegistry registry) {
    this.transaction =
        Timer.builder("vigil.monitor.recorder.transaction")
            .description("Time to record one result, commit included")
            .register(registry);
    this.failedRows = outboxCounter(registry, "FAILED");
    this.recoveredRows = outboxCounter(registry, "RECOVERED");
    this.staleResults =
        Counter.builder("vigil.monitor.results.stale")
            .description("Results rejected because a newer one was already recorded")
            .register(registry);
    this.batchSize =
        DistributionSummary.builder("vigil.monitor.recorder.batch.size")
            .description("Results recorded in one batch transaction")
            .register(registry);
    this.fallbacks =
        Counter.builder("vigil.monitor.recorder.batch.fallbacks")
            .description("Batch transactions that failed and were retried as single ones")
            .register(registry);
    this.savepointRedos =
        Counter.builder("vigil.monitor.recorder.batch.savepoint.redos")
            .description(
                "Batches redone with a savepoint per result because one result failed the"
                    + " set-based statements")
            .register(registry);
    this.conflictRedos =
        Counter.builder("vigil.monitor.recorder.conflict.redos")
            .description(
                "Recording transactions done again because PostgreSQL aborted them for a deadlock"
                    + " or a serialization failure with another transaction")
            .register(registry);
  }

  private static Counter outboxCounter(MeterRegistry registry, String type) {
    return Counter.builder("vigil.monitor.outbox.rows.written")
        .description("Outbox rows committed")
        .tag("type", type)
        .register(registry);
  }

  /** One result waited {@code nanos} for its transaction's commit. */
  void transaction(long nanos) {
    transaction.record(nanos, TimeUnit.NANOSECONDS);
  }

  /** A batch transaction of {@code results} committed. */
  void batch(int results) {
    batchSize.record(results);
  }

  /** A batch transaction failed as a whole; its results are retried alone. */
  void fallback() {
    fallbacks.increment();
  }

  /** A batch is redone with a savepoint per result. */
  void savepointRedo() {
    savepointRedos.increment();
  }

  /** A recording transaction is done again after a deadlock or serialization failure. */
  void conflictRedo() {
    conflictRedos.increment();
  }

  /** Counts and logs what {@code outcome} committed for {@code result}. */
  void committed(ProbeResult result, RecordOutcome outcome) {
    if (!outcome.accepted()) {
      staleResults.increment();
      LOG.debug("result rejected service={} reason={}", result.service(), outcome.rejectedReason());
      return;
    }
    AlertEvent event = outcome.event();
    if (event == null) {
      return;
    }
    switch (event.kind()) {
      case FAILED -> failedRows.increment();
      case RECOVERED -> recoveredRows.increment();
      default -> {}
    }
    LOG.info(
        "alert committed service={} kind={} incident_id={} event_id={} consecutive_failures={}",
        event.service(),
        event.kind(),
        event.incidentId(),
        event.eventId(),
        event.consecutiveFailures());
  }
}
