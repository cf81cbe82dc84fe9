package dev.vigil.kit.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class ExponentialBackoffTest {
  @Test
  void doublesFromTheInitialPauseUpToTheCap() {
    ExponentialBackoff backoff =
        new ExponentialBackoff(Duration.ofMillis(500), Duration.ofSeconds(3));

    assertThat(Stream.generate(backoff::next).limit(6))
        .containsExactly(
            Duration.ofMillis(500),
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(3),
            Duration.ofSeconds(3),
            Duration.ofSeconds(3));
  }

  @Test
  void resetStartsAgainFromTheInitialPause() {
    ExponentialBackoff backoff =
        new ExponentialBackoff(Duration.ofMillis(200), Duration.ofSeconds(10));
    backoff.next();
    backoff.next();

    backoff.reset();

    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(200));
  }

  @Test
  void neverOverflowsHoweverManyAttemptsFail() {
    ExponentialBackoff backoff =
        new ExponentialBackoff(Duration.ofSeconds(1), Duration.ofSeconds(Long.MAX_VALUE / 2));

    for (int i = 0; i < 200; i++) {
      assertThat(backoff.next()).isPositive();
    }
  }

  @Test
  void refusesANonPositiveStartOrACapBelowIt() {
    assertThatThrownBy(() -> new ExponentialBackoff(Duration.ZERO, Duration.ofSeconds(1)))
        .hasMessageContaining("must be positive");
    assertThatThrownBy(() -> new ExponentialBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessageContaining("must not be less than");
  }
}
