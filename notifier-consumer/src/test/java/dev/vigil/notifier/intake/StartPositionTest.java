package dev.vigil.notifier.intake;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class StartPositionTest {
  private static final TopicPartition PARTITION = new TopicPartition("alerts", 0);
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC);

  @Test
  void aRecordProducedWhileTheStartIsWorkedOutIsNotSkipped() {
    // The partition is empty when the consumer joins; a record arrives while the start position is
    // being worked out (after the time lookup found nothing). It must be read, not skipped.
    MockConsumer<byte[], byte[]> consumer =
        new MockConsumer<>("earliest") {
          @Override
          public synchronized Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(
              Map<TopicPartition, Long> timestamps, Duration timeout) {
            updateEndOffsets(Map.of(PARTITION, 1L)); // the record arrives now
            return Map.of();
          }
        };
    consumer.assign(List.of(PARTITION));
    consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
    consumer.updateEndOffsets(Map.of(PARTITION, 0L));
    Counter skipped = new SimpleMeterRegistry().counter("skipped");

    new StartPosition(consumer, Duration.ofHours(1), CLOCK, skipped)
        .onPartitionsAssigned(List.of(PARTITION));

    assertThat(consumer.committed(Set.of(PARTITION)).get(PARTITION).offset()).isZero();
    assertThat(consumer.position(PARTITION)).isZero();
    assertThat(skipped.count()).isZero();
  }

  @Test
  void recordsOlderThanTheLookBackAreSkippedAndCounted() {
    MockConsumer<byte[], byte[]> consumer =
        new MockConsumer<>("earliest") {
          @Override
          public synchronized Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(
              Map<TopicPartition, Long> timestamps, Duration timeout) {
            assertThat(timestamps.get(PARTITION))
                .isEqualTo(CLOCK.millis() - Duration.ofHours(1).toMillis());
            return Map.of(PARTITION, new OffsetAndTimestamp(7, CLOCK.millis()));
          }
        };
    consumer.assign(List.of(PARTITION));
    consumer.updateBeginningOffsets(Map.of(PARTITION, 2L));
    consumer.updateEndOffsets(Map.of(PARTITION, 10L));
    Counter skipped = new SimpleMeterRegistry().counter("skipped");

    new StartPosition(consumer, Duration.ofHours(1), CLOCK, skipped)
        .onPartitionsAssigned(List.of(PARTITION));

    assertThat(consumer.committed(Set.of(PARTITION)).get(PARTITION).offset()).isEqualTo(7);
    assertThat(skipped.count()).isEqualTo(5);
  }
}
