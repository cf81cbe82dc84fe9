package dev.vigil.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Command-line options.
 *
 * @param suites which suites to run, in order
 * @param repetitions how many times each measurement is repeated (the median is reported)
 * @param warmup load applied before each measurement window and discarded
 * @param window length of one measurement window
 * @param backlog rows in the relay catch-up backlog
 * @param outDir where report.json and report.md go
 * @param reportFile the REPORT.md to (over)write, or null
 * @param quick whether this is a quick smoke run (marked as such in the report)
 */
public record BenchOptions(
    List<String> suites,
    int repetitions,
    Duration warmup,
    Duration window,
    int backlog,
    Path outDir,
    Path reportFile,
    boolean quick) {

  /** Every suite, in the order they run by default. */
  public static final List<String> ALL_SUITES =
      List.of(
          "limit",
          "polling",
          "relay",
          "catchup",
          "idle-outbox",
          "recorder",
          "probing",
          "e2e",
          "notifier");

  static final String USAGE =
      """
      usage: java -jar benchmarks.jar [--quick] [--suites=a,b,...] [--reps=N] [--window=SECONDS]
                                      [--warmup=SECONDS] [--backlog=ROWS] [--out=DIR] [--report=FILE]
        --quick        one repetition, 3 s windows, 1 s warm-up, 20,000-row backlog (smoke run)
        --suites       any of %s (default: all)
        --reps         repetitions per measurement, median reported (default 3)
        --window       measurement window in seconds (default 10)
        --warmup       warm-up in seconds before each window (default 3)
        --backlog      rows in the relay catch-up backlog (default 100000)
        --out          directory for report.json and report.md (default tools/benchmarks/target/bench-report)
        --report       also write the markdown report to this file (e.g. tools/benchmarks/REPORT.md)
      """
          .formatted(String.join(",", ALL_SUITES));

  public BenchOptions {
    suites = List.copyOf(suites);
    for (String suite : suites) {
      if (!ALL_SUITES.contains(suite)) {
        throw new IllegalArgumentException(
            "unknown suite '" + suite + "'; known: " + String.join(",", ALL_SUITES));
      }
    }
    if (repetitions < 1) {
      throw new IllegalArgumentException("--reps must be at least 1");
    }
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("--window must be positive");
    }
    if (backlog < 1) {
      throw new IllegalArgumentException("--backlog must be at least 1");
    }
  }

  /** Parses {@code args}; throws IllegalArgumentException with a readable message. */
  public static BenchOptions parse(String[] args) {
    boolean quick = false;
    List<String> suites = ALL_SUITES;
    Integer reps = null;
    Double window = null;
    Double warmup = null;
    Integer backlog = null;
    Path out = Path.of("tools/benchmarks/target/bench-report");
    Path report = null;
    for (String arg : args) {
      String[] kv = arg.split("=", 2);
      String value = kv.length > 1 ? kv[1] : "";
      switch (kv[0]) {
        case "--quick" -> quick = true;
        case "--suites" -> suites = splitSuites(value);
        case "--reps" -> reps = Integer.parseInt(value);
        case "--window" -> window = Double.parseDouble(value);
        case "--warmup" -> warmup = Double.parseDouble(value);
        case "--backlog" -> backlog = Integer.parseInt(value);
        case "--out" -> out = Path.of(value);
        case "--report" -> report = Path.of(value);
        case "--help", "-h" -> throw new IllegalArgumentException(USAGE);
        default -> throw new IllegalArgumentException("unknown option " + arg + "\n" + USAGE);
      }
    }
    return new BenchOptions(
        suites,
        reps != null ? reps : quick ? 1 : 3,
        seconds(warmup != null ? warmup : quick ? 1 : 3),
        seconds(window != null ? window : quick ? 3 : 10),
        backlog != null ? backlog : quick ? 20_000 : 100_000,
        out,
        report,
        quick);
  }

  private static List<String> splitSuites(String value) {
    Set<String> chosen = new LinkedHashSet<>();
    for (String s : value.split(",")) {
      if (!s.isBlank()) {
        chosen.add(s.trim());
      }
    }
    return new ArrayList<>(chosen);
  }

  private static Duration seconds(double s) {
    return Duration.ofMillis(Math.round(s * 1000));
  }

  public boolean runs(String suite) {
    return suites.contains(suite);
  }
}
