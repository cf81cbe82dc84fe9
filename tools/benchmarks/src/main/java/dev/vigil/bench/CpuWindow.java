package dev.vigil.bench;

import java.nio.file.Path;

/**
 * CPU used by this JVM and by PostgreSQL between two moments, sampled by a background thread while
 * the caller drives the load: reported as cores (CPU seconds per second).
 */
public final class CpuWindow {
  private final Thread sampler;
  private volatile double jvmCores = Double.NaN;
  private volatile double pgCores = Double.NaN;

  private CpuWindow(long startNanos, long endNanos, Path pgDataDir) {
    this.sampler =
        Thread.ofVirtual()
            .start(
                () -> {
                  if (!sleepUntil(startNanos)) {
                    return;
                  }
                  double jvm0 = CpuMeter.processCpuSeconds();
                  double pg0 = CpuMeter.postgresCpuSeconds(pgDataDir);
                  long t0 = System.nanoTime();
                  if (!sleepUntil(endNanos)) {
                    return;
                  }
                  double seconds = (System.nanoTime() - t0) / 1e9;
                  jvmCores = (CpuMeter.processCpuSeconds() - jvm0) / seconds;
                  pgCores = (CpuMeter.postgresCpuSeconds(pgDataDir) - pg0) / seconds;
                });
  }

  /** Starts sampling; {@code startNanos}/{@code endNanos} are {@link System#nanoTime()} values. */
  public static CpuWindow between(long startNanos, long endNanos, Path pgDataDir) {
    return new CpuWindow(startNanos, endNanos, pgDataDir);
  }

  /** Waits for the window to end. */
  public CpuWindow await() {
    try {
      sampler.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return this;
  }

  public double jvmCores() {
    return jvmCores;
  }

  public double pgCores() {
    return pgCores;
  }

  /**
   * Sleeps until {@link System#nanoTime()} reaches {@code nanos}; false (interrupt flag restored)
   * if interrupted.
   */
  public static boolean sleepUntil(long nanos) {
    long wait = nanos - System.nanoTime();
    if (wait <= 0) {
      return true;
    }
    try {
      Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
