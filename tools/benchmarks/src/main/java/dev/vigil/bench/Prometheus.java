package dev.vigil.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reads a service's /metrics (Prometheus text) to say where its time goes. */
public final class Prometheus {
  private Prometheus() {}

  /** Every unlabelled sample, and the first sample of each labelled name; empty on failure. */
  public static Map<String, Double> scrape(int port) {
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
      for (String line : text.split("\n")) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        int brace = line.indexOf('{');
        int space = line.lastIndexOf(' ');
        String name = line.substring(0, brace >= 0 ? brace : line.indexOf(' '));
        try {
          m.putIfAbsent(name, Double.parseDouble(line.substring(space + 1)));
        } catch (NumberFormatException e) {
          // not a plain sample line
        }
      }
    } catch (IOException | RuntimeException e) {
      return m;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return m;
  }

  /** Mean of a timer ({@code _sum / _count}) in ms, or NaN. */
  public static double meanMs(Map<String, Double> metrics, String timer) {
    double count = metrics.getOrDefault(timer + "_count", Double.NaN);
    double sum = metrics.getOrDefault(timer + "_sum", Double.NaN);
    return count > 0 ? sum / count * 1000 : Double.NaN;
  }
}
