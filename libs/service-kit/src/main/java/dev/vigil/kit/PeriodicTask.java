package dev.vigil.kit;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a task on its own daemon thread with a fixed pause between runs. A run that throws an
 * exception is logged and the schedule goes on (a plain {@link ScheduledExecutorService} would
 * silently stop it); an {@link Error} still ends it. Closing interrupts a run in progress and waits
 * up to five seconds for it to end.
 */
public final class PeriodicTask implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PeriodicTask.class);

  private final String name;
  private final Runnable task;
  private final ScheduledExecutorService timer;

  private PeriodicTask(String name, Runnable task) {
    this.name = name;
    this.task = task;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().name(name).daemon().unstarted(r));
  }

  /** Starts {@code task} after {@code initialDelay}, then again {@code pause} after each run. */
  public static PeriodicTask start(
      String name, Duration initialDelay, Duration pause, Runnable task) {
    PeriodicTask periodic = new PeriodicTask(name, task);
    periodic.timer.scheduleWithFixedDelay(
        periodic::runOnce, initialDelay.toMillis(), pause.toMillis(), TimeUnit.MILLISECONDS);
    return periodic;
  }

  private void runOnce() {
    try {
      task.run();
    } catch (RuntimeException e) {
      LOG.warn(
          "periodic task failed, runs again after its pause task={} error={}", name, e.toString());
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      if (!timer.awaitTermination(5, TimeUnit.SECONDS)) {
        LOG.warn("periodic task still running 5 s after close task={}", name);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
