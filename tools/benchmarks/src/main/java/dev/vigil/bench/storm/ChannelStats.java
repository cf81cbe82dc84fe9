package dev.vigil.bench.storm;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One channel's view of one flip of the storm (every service DOWN, or every service RECOVERED),
 * from the messages the vendor accepted: how many, when the first and the last came, which services
 * they named and how many only after the aim's two minutes, and per service whether a RECOVERED was
 * named before the DOWN it follows.
 */
final class ChannelStats {
  /** The aim: every service named within this long of the flip. */
  static final long NAMED_AIM_MICROS = 120_000_000L;

  private ChannelStats() {}

  /**
   * Metrics of {@code kind} (FAILED or RECOVERED) for the messages between {@code flipMicros} and
   * {@code untilMicros}: {@code messages}, {@code first_message_s}, {@code last_message_s} (last
   * one that named a service of this kind), {@code services_named}, {@code named_within_2min},
   * {@code missing} (services never named as {@code kind}), {@code over_limit} (requests the vendor
   * answered 429 in the window), {@code messages_per_s} (over first → last), {@code min_gap_s}
   * (shortest gap).
   */
  static Map<String, Double> flip(
      List<VendorMessages.Message> messages,
      List<Long> overLimitMicros,
      Set<String> services,
      String kind,
      long flipMicros,
      long untilMicros) {
    boolean down = kind.equals("FAILED");
    long count = 0;
    long previous = Long.MIN_VALUE;
    long minGap = Long.MAX_VALUE;
    long first = Long.MAX_VALUE;
    long lastNaming = Long.MIN_VALUE;
    Map<String, Long> namedAt = new HashMap<>();
    for (VendorMessages.Message m : messages) {
      if (m.atMicros() < flipMicros || m.atMicros() >= untilMicros) {
        continue;
      }
      count++;
      if (previous != Long.MIN_VALUE) {
        minGap = Math.min(minGap, m.atMicros() - previous);
      }
      previous = m.atMicros();
      first = Math.min(first, m.atMicros());
      for (String service : down ? m.down() : m.recovered()) {
        if (services.contains(service) && namedAt.putIfAbsent(service, m.atMicros()) == null) {
          lastNaming = Math.max(lastNaming, m.atMicros());
        }
      }
    }
    long within =
        namedAt.values().stream().filter(at -> at - flipMicros <= NAMED_AIM_MICROS).count();
    long over = overLimitMicros.stream().filter(at -> at >= flipMicros && at < untilMicros).count();
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("services", (double) services.size());
    m.put("messages", (double) count);
    m.put("first_message_s", count == 0 ? Double.NaN : (first - flipMicros) / 1e6);
    m.put(
        "last_message_s",
        lastNaming == Long.MIN_VALUE ? Double.NaN : (lastNaming - flipMicros) / 1e6);
    m.put("services_named", (double) namedAt.size());
    m.put("named_within_2min", (double) within);
    m.put("missing", (double) (services.size() - namedAt.size()));
    m.put("over_limit", (double) over);
    double span = count < 2 ? Double.NaN : (lastNaming - first) / 1e6;
    m.put("messages_per_s", span > 0 ? (count - 1) / span : Double.NaN);
    m.put("min_gap_s", minGap == Long.MAX_VALUE ? Double.NaN : minGap / 1e6);
    return m;
  }

  /**
   * Services whose first RECOVERED naming came before (or in the same message as) their first DOWN
   * naming, over the whole run: a service's own order broken.
   */
  static long orderViolations(List<VendorMessages.Message> messages) {
    Map<String, Integer> firstDown = new HashMap<>();
    Map<String, Integer> firstRecovered = new HashMap<>();
    for (int i = 0; i < messages.size(); i++) {
      VendorMessages.Message m = messages.get(i);
      for (String s : m.down()) {
        firstDown.putIfAbsent(s, i);
      }
      for (String s : m.recovered()) {
        firstRecovered.putIfAbsent(s, i);
      }
    }
    return firstRecovered.entrySet().stream()
        .filter(
            e -> !firstDown.containsKey(e.getKey()) || firstDown.get(e.getKey()) >= e.getValue())
        .count();
  }
}
