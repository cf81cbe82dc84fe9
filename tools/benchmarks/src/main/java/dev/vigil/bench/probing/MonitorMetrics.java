package dev.vigil.bench.probing;

import dev.vigil.bench.Prometheus;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A few of the monitor's own /metrics at the end of the window, to say where probing time goes: the
 * recording transaction (pool wait and commit included) and probes in flight.
 */
final class MonitorMetrics {
  private MonitorMetrics() {}

  static Map<String, Double> scrape(int port) {
    Map<String, Double> metrics = Prometheus.scrape(port);
    Map<String, Double> m = new LinkedHashMap<>();
    m.put(
        "record_tx_mean_ms",
        Prometheus.meanMs(metrics, "vigil_monitor_recorder_transaction_seconds"));
    m.put(
        "record_tx_max_ms",
        metrics.getOrDefault("vigil_monitor_recorder_transaction_seconds_max", Double.NaN) * 1000);
    m.put("in_flight_at_end", metrics.getOrDefault("vigil_monitor_probes_in_flight", Double.NaN));
    return m;
  }
}
