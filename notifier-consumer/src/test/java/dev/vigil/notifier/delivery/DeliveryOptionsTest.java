package dev.vigil.notifier.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DeliveryOptionsTest {
  private static DeliveryOptions.Builder complete() {
    return DeliveryOptions.builder()
        .workers(2)
        .batchSize(8)
        .maxAttempts(3)
        .lease(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .connectTimeout(Duration.ofSeconds(1))
        .readTimeout(Duration.ofSeconds(2))
        .backoff(Duration.ofMillis(100), Duration.ofSeconds(10))
        .retryAfterMax(Duration.ofMinutes(1));
  }

  @Test
  void namedOptionsLandWhereTheySay() {
    DeliveryOptions options = complete().build();

    assertThat(options.workers()).isEqualTo(2);
    assertThat(options.batchSize()).isEqualTo(8);
    assertThat(options.maxAttempts()).isEqualTo(3);
    assertThat(options.lease()).isEqualTo(Duration.ofSeconds(30));
    assertThat(options.pollInterval()).isEqualTo(Duration.ofMillis(50));
    assertThat(options.connectTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(options.readTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(options.backoff())
        .isEqualTo(
            new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10), Duration.ofMinutes(1)));
  }

  @Test
  void theBuiltOptionsDoNotChangeWhenTheBuilderIsReused() {
    DeliveryOptions.Builder builder = complete();
    DeliveryOptions options = builder.build();
    builder.workers(9);

    assertThat(options.workers()).isEqualTo(2);
  }

  @Test
  void missingAndInconsistentOptionsAreAllNamed() {
    assertThatThrownBy(() -> DeliveryOptions.builder().workers(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("workers must be at least 1, was 0")
        .hasMessageContaining("lease is not set")
        .hasMessageContaining("retryAfterMax is not set");
    assertThatThrownBy(() -> complete().lease(Duration.ofSeconds(3)).build())
        .hasMessageContaining("lease must exceed connectTimeout + readTimeout");
    assertThatThrownBy(
            () -> complete().backoff(Duration.ofSeconds(5), Duration.ofSeconds(1)).build())
        .hasMessageContaining("backoff max must not be below backoff initial");
    assertThatThrownBy(() -> complete().pollInterval(Duration.ofMillis(-1)).build())
        .hasMessageContaining("pollInterval must be positive");
  }
}
