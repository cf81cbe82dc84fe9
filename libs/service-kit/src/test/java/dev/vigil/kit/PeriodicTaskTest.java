package dev.vigil.kit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PeriodicTaskTest {

  @Test
  void aFailingRunDoesNotEndTheSchedule() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch threeRuns = new CountDownLatch(3);
    try (PeriodicTask task =
        PeriodicTask.start(
            "test-periodic",
            Duration.ZERO,
            Duration.ofMillis(10),
            () -> {
              threeRuns.countDown();
              if (runs.incrementAndGet() == 1) {
                throw new IllegalStateException("first run fails");
              }
            })) {
      assertThat(threeRuns.await(30, TimeUnit.SECONDS)).isTrue();
    }
    int afterClose = runs.get();
    Thread.sleep(100);
    assertThat(runs.get()).as("no run after close").isEqualTo(afterClose);
  }

  @Test
  void closeInterruptsARunInProgress() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    PeriodicTask task =
        PeriodicTask.start(
            "test-blocking",
            Duration.ZERO,
            Duration.ofHours(1),
            () -> {
              running.countDown();
              try {
                Thread.sleep(Duration.ofHours(1));
              } catch (InterruptedException e) {
                interrupted.countDown();
              }
            });
    assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
    task.close();
    assertThat(interrupted.await(30, TimeUnit.SECONDS)).isTrue();
  }
}
