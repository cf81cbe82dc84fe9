package dev.vigil.bench;

import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/** What a suite needs: the shared servers, the options and the report to add to. */
public record BenchContext(Infra infra, BenchOptions options, Report report) {

  /**
   * Adds the median of {@code measurement} run {@link BenchOptions#repetitions()} times (see {@link
   * Result#median}).
   */
  public void addMedian(
      String suite, String variant, String note, IntFunction<Map<String, Double>> measurement) {
    report.add(Result.median(suite, variant, options.repetitions(), note, measurement));
  }

  /** Adds the median of runs measured by the suite itself (e.g. interleaved with other cases). */
  public void addRuns(String suite, String variant, String note, List<Map<String, Double>> runs) {
    report.add(Result.of(suite, variant, runs, note));
  }

  /** Adds a case measured in one run. */
  public void addOneRun(String suite, String variant, Map<String, Double> metrics, String note) {
    report.add(Result.of(suite, variant, List.of(metrics), note));
  }
}
