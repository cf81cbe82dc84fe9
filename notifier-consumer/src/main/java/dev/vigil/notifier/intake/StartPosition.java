package dev.vigil.notifier.intake;

import io.micrometer.core.instrument.Counter;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a partition without a committed offset starts. When the notifier's database already holds
 * records of that partition (the group's offsets expired while every notifier was down longer than
 * the broker's {@code offsets.retention.minutes}, or were reset), it resumes right after the last
 * one stored: nothing this notifier never saw is skipped, however old. Only a partition the
 * database has never seen (a new group name with a fresh database) starts at the first record whose
 * timestamp is at most {@code lookBack} old (the end of the partition when there is none), not at
 * the earliest record, so a fresh setup does not page again for every alert in the topic's
 * retention. What is skipped is logged and counted. The start position is committed at once, so a
 * notifier that is merely down later resumes there and loses nothing, even on a partition that had
 * no record yet.
 *
 * <p>A partition with a committed offset is left alone: the consumer resumes there (and an offset
 * that fell out of the topic's retention resets to the earliest record still kept).
 */
final class StartPosition implements ConsumerRebalanceListener {
  private static final Logger LOG = LoggerFactory.getLogger(StartPosition.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final Consumer<byte[], byte[]> consumer;
  private final Duration lookBack;
  private final Clock clock;
  private final Counter skipped;
  private final Function<TopicPartition, OptionalLong> lastStored;

  StartPosition(
      Consumer<byte[], byte[]> consumer, Duration lookBack, Clock clock, Counter skipped) {
    this(consumer, lookBack, clock, skipped, partition -> OptionalLong.empty());
  }

  /**
   * @param lastStored the highest offset of the partition the notifier's database holds (receipt,
   *     rejected record or skipped kind), or empty
   */
  StartPosition(
      Consumer<byte[], byte[]> consumer,
      Duration lookBack,
      Clock clock,
      Counter skipped,
      Function<TopicPartition, OptionalLong> lastStored) {
    this.consumer = consumer;
    this.lookBack = lookBack;
    this.clock = clock;
    this.skipped = skipped;
    this.lastStored = lastStored;
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    if (partitions.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> committed =
        consumer.committed(new HashSet<>(partitions), TIMEOUT);
    List<TopicPartition> fresh = partitions.stream().filter(p -> committed.get(p) == null).toList();
    if (fresh.isEmpty()) {
      return;
    }
    // The end first: a record produced while these questions are asked lands at or after it, so
    // starting at the end (or before it) can never skip a record that arrives now. Asked the other
    // way round, a record produced between the two questions was skipped.
    Map<TopicPartition, Long> end = consumer.endOffsets(fresh, TIMEOUT);
    long since = clock.millis() - lookBack.toMillis();
    Map<TopicPartition, Long> query = new HashMap<>();
    fresh.forEach(p -> query.put(p, Math.max(0, since)));
    Map<TopicPartition, OffsetAndTimestamp> byTime = consumer.offsetsForTimes(query, TIMEOUT);
    Map<TopicPartition, Long> begin = consumer.beginningOffsets(fresh, TIMEOUT);
    Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
    for (TopicPartition partition : fresh) {
      OptionalLong stored = lastStored.apply(partition);
      if (stored.isPresent()) {
        long first = begin.get(partition);
        long target = Math.min(Math.max(stored.getAsLong() + 1, first), end.get(partition));
        consumer.seek(partition, target);
        start.put(partition, new OffsetAndMetadata(target));
        if (stored.getAsLong() + 1 < first) {
          LOG.warn(
              "intake resumes after stored offset, records gone from the topic partition={}"
                  + " last_stored={} first_kept={} lost_offsets={}..{}",
              partition,
              stored.getAsLong(),
              first,
              stored.getAsLong() + 1,
              first - 1);
        } else {
          LOG.info(
              "intake start without group offset, resuming after the last stored record"
                  + " partition={} last_stored={} start_offset={}",
              partition,
              stored.getAsLong(),
              target);
        }
        continue;
      }
      OffsetAndTimestamp found = byTime.get(partition);
      long target =
          found != null ? Math.min(found.offset(), end.get(partition)) : end.get(partition);
      long first = begin.get(partition);
      long skip = Math.max(0, target - first);
      consumer.seek(partition, target);
      start.put(partition, new OffsetAndMetadata(target));
      skipped.increment(skip);
      LOG.info(
          "intake start without offset partition={} look_back={} start_offset={}"
              + " skipped_records={} skipped_offsets={}..{}",
          partition,
          lookBack,
          target,
          skip,
          first,
          target - 1);
    }
    consumer.commitSync(start, TIMEOUT);
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    // Offsets are committed after each stored batch; nothing is pending here.
  }
}
