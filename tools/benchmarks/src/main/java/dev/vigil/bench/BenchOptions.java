package dev.vigil.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The options of a benchmark run, as parsed by {@link BenchCommand}.
 *
 * @param suites which suites to run, in order
 * @param repetitions how many times each measurement is repeated (the median is reported)
 * @param warmup load applied before each measurement window and discarded
 * @param window length of one measurement window
 * @param backlog rows in the relay catch-up backlog
 * @param outDir where report.json and report.md go
 * @param reportFile the REPORT.md to (over)write, or null
 * @param quick whether this is a quick smoke run (marked as such in the report)
 * @param services services that fail at once in the storm-channels suite, or null for its default
 *     (10,000; 1,000 with {@code --quick})
 */
public record BenchOptions(
    List<String> suites,
    int repetitions,
    Duration warmup,
    Duration window,
    int backlog,
    Path outDir,
    Path reportFile,
    boolean quick,
    Integer services) {

  /** Every suite, in the order they run by default. */
  public static final List<String> ALL_SUITES =
      List.of(
          "limit",
          "polling",
          "relay",
          "catchup",
          "delivery",
          "idle-outbox",
          "recorder",
          "probing",
          "probing-mixed",
          "probing-locations",
          "detect",
          "e2e",
          "notifier",
          "debezium-server",
          "storm",
          "storm-channels",
          "footprint",
          "relay-cpu");

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
    if (services != null && (services < 1 || services > 100_000)) {
      throw new IllegalArgumentException("--services must be 1 to 100000");
    }
  }

  /**
   * Parses {@code args} (see {@link BenchCommand}).
   *
   * @throws picocli.CommandLine.ParameterException for an unknown option, a bad value or an unknown
   *     suite, with a readable message
   */
  public static BenchOptions parse(String... args) {
    BenchCommand command = new BenchCommand();
    new picocli.CommandLine(command).parseArgs(args);
    return command.options();
  }

  /** Services of the storm-channels suite: {@code --services}, else 10,000 (quick: 1,000). */
  public int stormServices() {
    return services != null ? services : quick ? 1_000 : 10_000;
  }

  public boolean runs(String suite) {
    return suites.contains(suite);
  }
}
