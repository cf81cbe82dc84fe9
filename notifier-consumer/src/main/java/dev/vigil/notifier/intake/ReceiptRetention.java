package dev.vigil.notifier.intake;

import dev.vigil.kit.PeriodicTask;
import dev.vigil.kit.db.Database;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forgets receipts that finished (DELIVERED or SKIPPED) longer than the retention age ago, the
 * notes of events skipped for an unknown kind and the closed groups of grouped channels, in batches
 * of short transactions. Each (event, channel) row goes on its own: a delivered channel's row may
 * go while another channel's row of the same event is still pending. PENDING and DEAD receipts are
 * never touched, so no delivery and no service's order depends on this job.
 *
 * <p>The price of forgetting: a receipt is what makes a second copy of an event a no-op, so an
 * event read from Kafka again after its receipt was deleted (a consumer-group reset to an old
 * offset) would be delivered again. The age must therefore outlast the topic's retention; the
 * default, 30 days, is four times Kafka's default of 7 days.
 */
public final class ReceiptRetention implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReceiptRetention.class);

  private static final String DELETE_BATCH =
      """
      delete from notifier_receipt
       where (event_id, channel) in (select event_id, channel from notifier_receipt
                           where status in ('DELIVERED', 'SKIPPED')
                             and coalesce(delivered_at, skipped_at) < ?
                           limit ?
                             for update skip locked)
      """;

  /** Notes of skipped unknown-kind events are kept as long as finished receipts. */
  private static final String DELETE_SKIPPED =
      """
      delete from notifier_skipped_kind
       where (kafka_topic, kafka_partition, kafka_offset) in
             (select kafka_topic, kafka_partition, kafka_offset from notifier_skipped_kind
               where skipped_at < ? limit ? for update skip locked)
      """;

  /**
   * Groups of grouped channels closed as long ago as finished receipts, with their messages (what
   * each carried). Open groups and their messages are never touched.
   */
  private static final String DELETE_GROUPS =
      """
      with old as (
        select group_id from notifier_group
         where status = 'CLOSED' and closed_at < ? limit ? for update skip locked),
      messages as (
        delete from notifier_group_message where group_id in (select group_id from old))
      delete from notifier_group where group_id in (select group_id from old)
      """;

  private final Database database;
  private final Clock clock;
  private final Duration age;
  private final int batch;
  private final Counter deleted;
  private PeriodicTask timer;

  public ReceiptRetention(
      Database database, Clock clock, Duration age, int batch, MeterRegistry registry) {
    this.database = database;
    this.clock = clock;
    this.age = age;
    this.batch = batch;
    this.deleted =
        Counter.builder("vigil.notifier.receipts.trimmed")
            .description("Finished receipts deleted by retention")
            .register(registry);
  }

  /** Runs {@link #runOnce()} every {@code interval}, the first time one interval after start. */
  public void start(Duration interval) {
    timer = PeriodicTask.start("receipt-retention", interval, interval, this::runOnce);
  }

  /**
   * Deletes every receipt that finished before now minus the age, one batch per transaction.
   *
   * @return receipts deleted
   */
  public long runOnce() {
    Timestamp cutoff = Timestamp.from(clock.instant().minus(age));
    long total = trim("trimming finished receipts", DELETE_BATCH, cutoff, deleted::increment);
    trim("trimming skipped-kind notes", DELETE_SKIPPED, cutoff, rows -> {});
    trim("trimming closed channel groups", DELETE_GROUPS, cutoff, rows -> {});
    if (total > 0) {
      LOG.info("receipts trimmed rows={} finished_before={}", total, cutoff.toInstant());
    }
    return total;
  }

  /** Runs {@code sql} (cutoff, batch size) one batch per transaction until a batch is short. */
  private long trim(String what, String sql, Timestamp cutoff, IntConsumer onBatch) {
    long total = 0;
    int rows;
    do {
      rows =
          database.inTransaction(
              what,
              connection -> {
                try (PreparedStatement delete = connection.prepareStatement(sql)) {
                  delete.setTimestamp(1, cutoff);
                  delete.setInt(2, batch);
                  return delete.executeUpdate();
                }
              });
      total += rows;
      onBatch.accept(rows);
    } while (rows == batch && !Thread.currentThread().isInterrupted());
    return total;
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.close();
    }
  }
}
