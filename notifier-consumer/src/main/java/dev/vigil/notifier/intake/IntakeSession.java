package dev.vigil.notifier.intake;

import dev.vigil.kit.SafeText;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Kafka consumer's life in the intake: poll, classify, store, commit. Returns when intake is
 * stopped; throws when the consumer fails (the supervisor in {@link ReceiptConsumer} then closes it
 * and starts a new one). A batch the database cannot take is rewound and retried here with backoff,
 * so no record is skipped and the consumer keeps its assignment.
 */
final class IntakeSession {
  private static final Logger LOG = LoggerFactory.getLogger(IntakeSession.class);
  private static final Duration POLL = Duration.ofMillis(500);
  private static final Duration FIRST_BACKOFF = Duration.ofMillis(200);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);

  /** Where a session reports to; implemented by {@link ReceiptConsumer}. */
  interface Sink {
    void stored(ReceiptStore.Stored stored, List<Checked.Rejected> parked);

    /** Events of kinds this code does not know, skipped (stored in the same transaction). */
    default void skipped(List<Checked.Skipped> skipped) {}

    void state(IntakeState state);

    /** A poll returned without failing (a restarted consumer works again). */
    void polled();

    /** Waits {@code delay} unless intake is stopped first; false when stopped. */
    boolean pause(Duration delay);
  }

  private final Consumer<byte[], byte[]> consumer;
  private final ReceiptStore store;
  private final Sink sink;
  private final BooleanSupplier running;

  IntakeSession(
      Consumer<byte[], byte[]> consumer, ReceiptStore store, Sink sink, BooleanSupplier running) {
    this.consumer = consumer;
    this.store = store;
    this.sink = sink;
    this.running = running;
  }

  void run() {
    Duration backoff = FIRST_BACKOFF;
    while (running.getAsBoolean()) {
      ConsumerRecords<byte[], byte[]> records;
      try {
        records = consumer.poll(POLL);
      } catch (RecordDeserializationException e) {
        park(e);
        continue;
      }
      if (records.isEmpty()) {
        sink.polled();
        continue;
      }
      List<Checked.Accepted> accepted = new ArrayList<>(records.count());
      List<Checked.Rejected> parked = new ArrayList<>();
      List<Checked.Skipped> skipped = new ArrayList<>();
      for (ConsumerRecord<byte[], byte[]> record : records) {
        switch (Checked.of(record)) {
          case Checked.Accepted a -> accepted.add(a);
          case Checked.Rejected r -> parked.add(r);
          case Checked.Skipped k -> skipped.add(k);
        }
      }
      ReceiptStore.Stored stored;
      try {
        stored = store.store(accepted, parked, skipped);
      } catch (RuntimeException e) {
        sink.state(IntakeState.down(IntakeState.Cause.DATABASE, e.getMessage()));
        LOG.warn(
            "intake batch failed records={} retry_in_ms={} error=\"{}\"",
            records.count(),
            backoff.toMillis(),
            SafeText.text(e.getMessage(), SafeText.MAX_REASON));
        rewind(records);
        if (!sink.pause(backoff)) {
          return;
        }
        backoff = min(backoff.multipliedBy(2), MAX_BACKOFF);
        continue;
      }
      // The receipts are committed: delivery may start on them before the broker has the offsets.
      List<Checked.Rejected> all = new ArrayList<>(parked);
      all.addAll(stored.refused());
      sink.stored(stored, all);
      // A failing commit is a consumer failure: it goes up and the consumer is restarted; the
      // batch is then read again and adds nothing (receipts are keyed by event id).
      consumer.commitSync(nextOffsets(records));
      if (!skipped.isEmpty()) {
        sink.skipped(skipped);
      }
      sink.state(IntakeState.UP);
      backoff = FIRST_BACKOFF;
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /**
   * A record the consumer could not even hand over: parked with what Kafka kept of it, then
   * skipped. If parking fails the exception goes up and the consumer is restarted at the same
   * record.
   */
  private void park(RecordDeserializationException e) {
    TopicPartition partition = e.topicPartition();
    Checked.Rejected rejected =
        new Checked.Rejected(
            partition.topic(),
            partition.partition(),
            e.offset(),
            bytes(e.keyBuffer()),
            bytes(e.valueBuffer()),
            "record",
            "could not be read from Kafka: " + e.getMessage());
    ReceiptStore.Stored stored = store.store(List.of(), List.of(rejected));
    consumer.seek(partition, e.offset() + 1);
    sink.stored(stored, List.of(rejected));
  }

  private static byte[] bytes(ByteBuffer buffer) {
    if (buffer == null) {
      return null;
    }
    ByteBuffer copy = buffer.duplicate();
    byte[] bytes = new byte[copy.remaining()];
    copy.get(bytes);
    return bytes;
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
}
