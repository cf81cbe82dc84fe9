package dev.vigil.bench.storm;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * What the receiver saw of the storm's events: per kind, the delay from each event's threshold
 * crossing to its first arrival, what is missing, and per service whether the events arrived in the
 * order they were committed.
 */
final class StormStats {
  /** The aim of the issue: every event at the receiver at most this long after its threshold. */
  static final long AIM_MICROS = 15_000_000L;

  private StormStats() {}

  /**
   * Delays of the events of {@code kind}: {@code events} (their count), {@code delivered}, {@code
   * missing}, {@code p50_ms}…{@code max_ms}, {@code over_aim} (delivered later than 15 s or
   * missing) and {@code flip_to_last_s}, from {@code flipMicros} to the last arrival.
   */
  static Map<String, Double> delays(
      List<StormEvent> events, String kind, Map<UUID, Long> arrivals, long flipMicros) {
    Histogram h = new Histogram(3_600_000_000L, 3);
    long count = 0;
    long missing = 0;
    long overAim = 0;
    long last = Long.MIN_VALUE;
    for (StormEvent e : events) {
      if (!e.kind().equals(kind)) {
        continue;
      }
      count++;
      Long at = arrivals.get(e.id());
      if (at == null) {
        missing++;
        overAim++;
        continue;
      }
      long delay = Math.max(0, at - e.occurredMicros());
      h.recordValue(Math.min(delay, h.getHighestTrackableValue()));
      overAim += delay > AIM_MICROS ? 1 : 0;
      last = Math.max(last, at);
    }
    boolean none = h.getTotalCount() == 0;
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("events", (double) count);
    m.put("delivered", (double) h.getTotalCount());
    m.put("missing", (double) missing);
    m.put("p50_ms", none ? Double.NaN : h.getValueAtPercentile(50) / 1000.0);
    m.put("p95_ms", none ? Double.NaN : h.getValueAtPercentile(95) / 1000.0);
    m.put("p99_ms", none ? Double.NaN : h.getValueAtPercentile(99) / 1000.0);
    m.put("max_ms", none ? Double.NaN : h.getMaxValue() / 1000.0);
    m.put("over_aim", (double) overAim);
    m.put("flip_to_last_s", none ? Double.NaN : (last - flipMicros) / 1e6);
    return m;
  }

  /**
   * Services whose events reached the receiver in another order than they were committed ({@code
   * seq}); events that never arrived are left out of the comparison (they count as missing).
   */
  static long servicesOutOfOrder(
      List<StormEvent> events, Function<String, List<UUID>> arrivalOrder) {
    Map<String, List<StormEvent>> byService =
        events.stream().collect(Collectors.groupingBy(StormEvent::service));
    long violations = 0;
    for (var entry : byService.entrySet()) {
      List<UUID> committed =
          entry.getValue().stream()
              .sorted(Comparator.comparingLong(StormEvent::seq))
              .map(StormEvent::id)
              .toList();
      List<UUID> arrived = arrivalOrder.apply(entry.getKey());
      Set<UUID> seen = Set.copyOf(arrived);
      List<UUID> expected = committed.stream().filter(seen::contains).toList();
      List<UUID> actual = arrived.stream().filter(Set.copyOf(committed)::contains).toList();
      if (!expected.equals(actual)) {
        violations++;
      }
    }
    return violations;
  }
}
