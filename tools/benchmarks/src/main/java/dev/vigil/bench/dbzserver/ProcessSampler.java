package dev.vigil.bench.dbzserver;

import dev.vigil.bench.CpuWindow;
import dev.vigil.bench.footprint.ProcessStats;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Samples one process between two moments while the caller drives the load: its CPU over the window
 * (cores) and its largest resident memory and thread count, sampled every 250 ms.
 */
final class ProcessSampler {
  private final Thread thread;
  private volatile Map<String, Double> result = Map.of();

  private ProcessSampler(long pid, long startNanos, long endNanos) {
    this.thread =
        Thread.ofVirtual()
            .start(
                () -> {
                  if (!CpuWindow.sleepUntil(startNanos)) {
                    return;
                  }
                  ProcessStats first = ProcessStats.of(pid);
                  long t0 = System.nanoTime();
                  long maxRss = first.rssBytes();
                  int maxThreads = first.threads();
                  ProcessStats last = first;
                  while (System.nanoTime() < endNanos) {
                    long next = Math.min(endNanos, System.nanoTime() + 250_000_000L);
                    if (!CpuWindow.sleepUntil(next)) {
                      return;
                    }
                    last = ProcessStats.of(pid);
                    maxRss = Math.max(maxRss, last.rssBytes());
                    maxThreads = Math.max(maxThreads, last.threads());
                  }
                  double seconds = (System.nanoTime() - t0) / 1e9;
                  Map<String, Double> m = new LinkedHashMap<>();
                  m.put("proc_rss_mib", maxRss / (1024.0 * 1024.0));
                  m.put("proc_threads", (double) maxThreads);
                  m.put("proc_cpu_cores", (last.cpuSeconds() - first.cpuSeconds()) / seconds);
                  result = m;
                });
  }

  /** Starts sampling {@code pid} from {@code start} on for {@code window}. */
  static ProcessSampler after(long pid, Duration start, Duration window) {
    long from = System.nanoTime() + start.toNanos();
    return new ProcessSampler(pid, from, from + window.toNanos());
  }

  /** Waits for the window to end: proc_rss_mib, proc_threads (largest), proc_cpu_cores. */
  Map<String, Double> await() {
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return result;
  }
}
