package dev.vigil.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * One measured case: the median of each metric over the repetitions, and every repetition's raw
 * values.
 *
 * @param suite e.g. "relay"
 * @param variant e.g. "vigil @1000/s"
 * @param metrics median per metric (throughput keys end in {@code _per_s}, latencies in {@code
 *     _ms})
 * @param runs the metrics of every repetition, in order
 * @param note what the case measures or how it ended, for the table
 */
public record Result(
    String suite,
    String variant,
    Map<String, Double> metrics,
    List<Map<String, Double>> runs,
    String note) {

  public Result {
    metrics = Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
    runs = runs.stream().map(r -> Collections.unmodifiableMap(new LinkedHashMap<>(r))).toList();
  }

  /** Runs {@code measurement} {@code reps} times and keeps the median of every metric. */
  public static Result median(
      String suite,
      String variant,
      int reps,
      String note,
      IntFunction<Map<String, Double>> measurement) {
    List<Map<String, Double>> runs = new ArrayList<>();
    for (int rep = 0; rep < reps; rep++) {
      runs.add(measurement.apply(rep));
    }
    return of(suite, variant, runs, note);
  }

  /** The median of each metric over {@code runs}. */
  public static Result of(
      String suite, String variant, List<Map<String, Double>> runs, String note) {
    Map<String, Double> medians = new LinkedHashMap<>();
    for (Map<String, Double> run : runs) {
      for (String key : run.keySet()) {
        medians.computeIfAbsent(
            key,
            k ->
                median(
                    runs.stream()
                        .map(r -> r.get(k))
                        .filter(v -> v != null && !v.isNaN())
                        .toList()));
      }
    }
    return new Result(suite, variant, medians, runs, note);
  }

  static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  public double get(String metric) {
    Double v = metrics.get(metric);
    return v == null ? Double.NaN : v;
  }
}
