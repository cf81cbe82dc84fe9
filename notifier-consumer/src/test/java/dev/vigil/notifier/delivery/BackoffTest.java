package dev.vigil.notifier.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private final Backoff backoff =
      new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60), Duration.ofMinutes(5));

  @RepeatedTest(20)
  void delayDoublesPerAttemptWithJitterInTheUpperHalfAndIsCapped() {
    assertThat(backoff.delay(1, null)).isBetween(Duration.ofMillis(500), Duration.ofSeconds(1));
    assertThat(backoff.delay(3, null)).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(4));
    assertThat(backoff.delay(30, null)).isBetween(Duration.ofSeconds(30), Duration.ofSeconds(60));
  }

  @Test
  void retryAfterIsALowerBoundItselfBounded() {
    assertThat(backoff.delay(1, Duration.ofSeconds(2))).isEqualTo(Duration.ofSeconds(2));
    assertThat(backoff.delay(1, Duration.ofHours(3))).isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void retryAfterIsReadAsSecondsOrHttpDate() {
    Instant now = Instant.parse("2026-11-30T08:00:00Z");
    assertThat(Backoff.parseRetryAfter("2", now)).isEqualTo(Duration.ofSeconds(2));
    assertThat(Backoff.parseRetryAfter("Mon, 30 Nov 2026 08:00:30 GMT", now))
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(Backoff.parseRetryAfter("soon", now)).isNull();
    assertThat(Backoff.parseRetryAfter(null, now)).isNull();
  }

  @Test
  void hugeRetryAfterIsClampedToTheBoundNeverOverflows() {
    Instant now = Instant.parse("2026-11-30T08:00:00Z");
    Duration huge = Backoff.parseRetryAfter("1" + "0".repeat(30), now);
    assertThat(backoff.delay(1, huge)).isEqualTo(Duration.ofMinutes(5));
    Duration longMax = Backoff.parseRetryAfter(String.valueOf(Long.MAX_VALUE), now);
    assertThat(backoff.delay(3, longMax)).isEqualTo(Duration.ofMinutes(5));
    Duration farFuture = Backoff.parseRetryAfter("Fri, 31 Dec 9999 23:59:59 GMT", now);
    assertThat(backoff.delay(2, farFuture)).isEqualTo(Duration.ofMinutes(5));
    assertThat(Backoff.parseRetryAfter("-5", now)).isNull();
  }

  @Test
  void statusesAreClassifiedAsDeliveredRetryableOrPermanent() {
    assertThat(Outcome.ofStatus(204, null)).isInstanceOf(Outcome.Delivered.class);
    for (int status : new int[] {408, 429, 500, 502, 503, 504}) {
      assertThat(Outcome.ofStatus(status, null)).isInstanceOf(Outcome.Retryable.class);
    }
    for (int status : new int[] {301, 302, 307, 400, 401, 404, 409, 422}) {
      assertThat(Outcome.ofStatus(status, null)).isInstanceOf(Outcome.Permanent.class);
    }
  }
}
