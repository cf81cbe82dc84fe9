package dev.vigil.bench.probing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A few of the monitor's own /metrics at the end of the window, to say where probing time goes: the
 * recording transaction (commit included) and probes in flight.
 */
final class MonitorMetrics {
  private MonitorMetrics() {}

  static Map<String, Double> scrape(int port) {
    Map<String, Double> m = new LinkedHashMap<>();
    try (HttpClient client = HttpClient.newHttpClient()) {
      String text =
          client
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                      .timeout(Duration.ofSeconds(10))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      double count = value(text, "vigil_monitor_recorder_transaction_seconds_count");
      double sum = value(text, "vigil_monitor_recorder_transaction_seconds_sum");
      m.put("record_tx_mean_ms", count > 0 ? sum / count * 1000 : Double.NaN);
      m.put(
          "record_tx_max_ms", value(text, "vigil_monitor_recorder_transaction_seconds_max") * 1000);
      m.put("in_flight_at_end", value(text, "vigil_monitor_probes_in_flight"));
    } catch (IOException | RuntimeException e) {
      m.put("record_tx_mean_ms", Double.NaN);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return m;
  }

  /** The first sample of {@code name} (any labels), or NaN. */
  private static double value(String text, String name) {
    for (String line : text.split("\n")) {
      if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return Double.NaN;
  }
}
