package dev.vigil.bench.footprint;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Samples {@link ProcessStats} of every service twice a second over a window: RSS at the end and
 * its peak, peak threads, CPU cores (CPU seconds per second of the window); then the heap after a
 * full GC (taken last, since the collection itself changes RSS). {@code atEnd} runs as the window
 * closes, before the collections.
 */
final class FootprintWindow {
  private FootprintWindow() {}

  /** Metrics by service name, in the order of {@code services}. */
  static Map<String, Map<String, Double>> measure(
      List<ServiceProcess> services, Duration window, Runnable atEnd) {
    int n = services.size();
    ProcessStats[] first = new ProcessStats[n];
    long[] rssMax = new long[n];
    int[] threadsMax = new int[n];
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      first[i] = ProcessStats.of(services.get(i).pid());
    }
    ProcessStats[] last = first.clone();
    long end = t0 + window.toNanos();
    while (true) {
      for (int i = 0; i < n; i++) {
        last[i] = ProcessStats.of(services.get(i).pid());
        rssMax[i] = Math.max(rssMax[i], last[i].rssBytes());
        threadsMax[i] = Math.max(threadsMax[i], last[i].threads());
      }
      if (System.nanoTime() >= end) {
        break;
      }
      ServiceProcess.pause(Math.min(500, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    atEnd.run();
    Map<String, Map<String, Double>> out = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      Map<String, Double> m = new LinkedHashMap<>();
      m.put("rss_mib", last[i].rssBytes() / 1048576.0);
      m.put("rss_max_mib", rssMax[i] / 1048576.0);
      m.put("cpu_cores", (last[i].cpuSeconds() - first[i].cpuSeconds()) / seconds);
      m.put("threads", (double) last[i].threads());
      m.put("threads_max", (double) threadsMax[i]);
      out.put(services.get(i).name(), m);
    }
    for (int i = 0; i < n; i++) {
      out.get(services.get(i).name())
          .put("heap_after_gc_mib", HeapAfterGc.mib(services.get(i).pid()));
    }
    return out;
  }
}
