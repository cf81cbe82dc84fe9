package dev.vigil.notifier.intake;

import dev.vigil.kit.db.Database;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes the alert topic in a consumer group with manual commits.
 *
 * <p>Guarantee: a poll batch is stored in one database transaction (receipts, conflicts, rejected
 * records) and only then are its offsets committed. A crash between the two re-delivers the batch;
 * receipts are keyed by event id, so the re-delivery adds nothing. If the database is unavailable
 * the consumer seeks back to the batch start and retries with backoff, so no record is skipped.
 * Poison records are parked, never retried forever and never dropped silently.
 */
public final class ReceiptConsumer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReceiptConsumer.class);

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final ReceiptStore store;
  private final String topic;
  private final Runnable onNewReceipts;
  private final Counter received;
  private final Counter duplicates;
  private final Counter conflicts;
  private final Counter rejected;
  private final Thread thread;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean running = true;
  private volatile boolean healthy = true;

  /**
   * @param onNewReceipts called after a batch added receipts (wakes idle delivery workers)
   */
  public ReceiptConsumer(
      Database database,
      String bootstrapServers,
      String topic,
      String groupId,
      MeterRegistry registry,
      Runnable onNewReceipts) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
    // A crashed instance's partitions move to the survivors after 10 s instead of the default 45 s:
    // alerts wait
    // less after a kill -9 (the fault drill measured 40-85 s intake stalls with the default).
    props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
    props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "3000");
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, groupId + "-intake");
    this.consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.store = new ReceiptStore(database);
    this.topic = topic;
    this.onNewReceipts = onNewReceipts;
    this.received = registry.counter("vigil.notifier.receipts");
    this.duplicates = registry.counter("vigil.notifier.duplicates");
    this.conflicts = registry.counter("vigil.notifier.conflicts");
    this.rejected = registry.counter("vigil.notifier.rejected");
    this.thread = new Thread(this::run, "notifier-intake");
  }

  public void start() {
    thread.start();
  }

  /** False while the last batch could not be stored. */
  public boolean healthy() {
    return healthy && thread.isAlive();
  }

  private void run() {
    try {
      consumer.subscribe(List.of(topic));
      Duration backoff = Duration.ofMillis(200);
      while (running) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
        if (records.isEmpty()) {
          continue;
        }
        try {
          handle(records);
          healthy = true;
          backoff = Duration.ofMillis(200);
        } catch (RuntimeException e) {
          healthy = false;
          log.warn(
              "event=intake_batch_failed records={} retry_in_ms={} error=\"{}\"",
              records.count(),
              backoff.toMillis(),
              e.getMessage());
          rewind(records);
          if (stopped.await(backoff.toMillis(), TimeUnit.MILLISECONDS)) {
            break;
          }
          backoff =
              backoff.multipliedBy(2).compareTo(Duration.ofSeconds(10)) > 0
                  ? Duration.ofSeconds(10)
                  : backoff.multipliedBy(2);
        }
      }
    } catch (WakeupException e) {
      if (running) {
        log.error("event=intake_unexpected_wakeup", e);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.error("event=intake_stopped error=\"{}\"", e.getMessage(), e);
    } finally {
      healthy = false;
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
  }

  private void handle(ConsumerRecords<byte[], byte[]> records) {
    List<Checked.Accepted> accepted = new ArrayList<>(records.count());
    List<Checked.Rejected> parked = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> record : records) {
      switch (Checked.of(record)) {
        case Checked.Accepted a -> accepted.add(a);
        case Checked.Rejected r -> parked.add(r);
      }
    }
    ReceiptStore.Stored stored = store.store(accepted, parked);
    consumer.commitSync(nextOffsets(records));
    received.increment(stored.inserted());
    duplicates.increment(stored.duplicates());
    conflicts.increment(stored.conflicts());
    rejected.increment(stored.rejected());
    for (Checked.Rejected r : parked) {
      log.warn(
          "event=record_rejected topic={} partition={} offset={} field={} reason=\"{}\"",
          r.topic(),
          r.partition(),
          r.offset(),
          r.field(),
          r.reason());
    }
    if (stored.conflicts() > 0) {
      log.warn(
          "event=receipt_conflict count={} (same event id, different payload)", stored.conflicts());
    }
    if (stored.inserted() > 0) {
      onNewReceipts.run();
    }
  }

  private static Map<TopicPartition, OffsetAndMetadata> nextOffsets(
      ConsumerRecords<byte[], byte[]> records) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (TopicPartition partition : records.partitions()) {
      List<ConsumerRecord<byte[], byte[]>> list = records.records(partition);
      offsets.put(partition, new OffsetAndMetadata(list.getLast().offset() + 1));
    }
    return offsets;
  }

  private void rewind(ConsumerRecords<byte[], byte[]> records) {
    for (TopicPartition partition : records.partitions()) {
      if (consumer.assignment().contains(partition)) {
        consumer.seek(partition, records.records(partition).getFirst().offset());
      }
    }
  }

  @Override
  public void close() {
    running = false;
    stopped.countDown();
    consumer.wakeup();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
