package dev.vigil.relay.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;

class PendingAcksTest {
  private final AtomicInteger firstBatches = new AtomicInteger();
  private final PendingAcks acks = new PendingAcks(firstBatches::incrementAndGet);

  @Test
  void firstBatchIsAnnouncedOnce() {
    acks.batchRelayed();
    acks.batchRelayed();

    assertThat(firstBatches).hasValue(1);
    assertThat(acks.relayedABatch()).isTrue();
  }

  @Test
  void waitsOnlyWhileABatchIsInFlightAndForgetsItsReason() {
    assertThat(acks.pendingAck()).isEqualTo(Duration.ZERO);
    acks.batchStarted();
    acks.notAccepted("TimeoutException: no metadata");

    assertThat(acks.pendingAck()).isPositive();
    assertThat(acks.pendingReason()).isEqualTo("TimeoutException: no metadata");

    assertThat(acks.batchHasFailed()).isFalse();

    acks.batchEnded();
    assertThat(acks.pendingAck()).isEqualTo(Duration.ZERO);
    assertThat(acks.pendingReason()).isNull();
  }

  @Test
  void aFailedBatchKeepsWaitingWithItsFailureAsTheReason() throws Exception {
    acks.batchStarted();
    Duration before = acks.pendingAck();
    acks.batchFailed(new IllegalStateException("Kafka did not accept a record"));
    Thread.sleep(5);

    // The engine may take long to stop after the failure; health still sees the batch waiting.
    assertThat(acks.pendingAck()).isGreaterThan(before);
    assertThat(acks.pendingReason())
        .isEqualTo("IllegalStateException: Kafka did not accept a record");
    assertThat(acks.batchHasFailed()).isTrue();
  }

  @Test
  void aFailedSendIsReportedWithItsOwnRecord() {
    ProducerRecord<byte[], byte[]> first = new ProducerRecord<>("t", new byte[] {1});
    ProducerRecord<byte[], byte[]> second = new ProducerRecord<>("t", new byte[] {2});
    acks.add(first, CompletableFuture.completedFuture((RecordMetadata) null));
    acks.add(second, CompletableFuture.failedFuture(new IllegalArgumentException("too large")));

    assertThatThrownBy(
            () ->
                acks.awaitAll(
                    (record, cause) ->
                        new IllegalStateException(record.value()[0] + " " + cause.getMessage())))
        .hasMessage("2 too large");
  }

  @Test
  void clearForgetsTheSends() {
    acks.add(
        new ProducerRecord<>("t", new byte[] {1}),
        CompletableFuture.failedFuture(new IllegalArgumentException("refused")));
    acks.clear();

    assertThat(acks.isEmpty()).isTrue();
  }
}
