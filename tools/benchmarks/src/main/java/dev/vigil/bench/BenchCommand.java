package dev.vigil.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The benchmark command line: {@code --help} lists the options; an unknown option, a bad number or
 * an unknown suite is a usage error (exit 2). Options take their value as {@code --reps=5} or
 * {@code --reps 5}.
 */
@Command(
    name = "benchmarks",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description =
        "Measures Vigil against a durable PostgreSQL and a Kafka broker started for the run.")
final class BenchCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(
      names = "--quick",
      description = "one repetition, 3 s windows, 1 s warm-up, 20,000-row backlog (smoke run)")
  private boolean quick;

  @Option(
      names = "--suites",
      paramLabel = "SUITE",
      split = ",",
      description = "any of ${COMPLETION-CANDIDATES} (default: all)",
      completionCandidates = Suites.class)
  private List<String> suites = new ArrayList<>();

  @Option(
      names = "--reps",
      paramLabel = "N",
      description = "repetitions per measurement, median reported (default 3)")
  private Integer reps;

  @Option(
      names = "--window",
      paramLabel = "SECONDS",
      description = "measurement window in seconds (default 10)")
  private Double window;

  @Option(
      names = "--warmup",
      paramLabel = "SECONDS",
      description = "warm-up in seconds before each window (default 3)")
  private Double warmup;

  @Option(
      names = "--backlog",
      paramLabel = "ROWS",
      description = "rows in the relay catch-up backlog (default 100000)")
  private Integer backlog;

  @Option(
      names = "--services",
      paramLabel = "N",
      description =
          "services failing at once in the storm-channels suite (default 10000, quick 1000)")
  private Integer services;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      defaultValue = "tools/benchmarks/target/bench-report",
      description = "directory for report.json and report.md (default ${DEFAULT-VALUE})")
  private Path out;

  @Option(
      names = "--report",
      paramLabel = "FILE",
      description = "also write the markdown report here (e.g. tools/benchmarks/REPORT.md)")
  private Path report;

  /** The suite names, for --help. */
  static final class Suites implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return BenchOptions.ALL_SUITES.iterator();
    }
  }

  /** The options; a value the record refuses (unknown suite, zero reps) is a usage error. */
  BenchOptions options() {
    List<String> chosen =
        suites.isEmpty()
            ? BenchOptions.ALL_SUITES
            : new ArrayList<>(new LinkedHashSet<>(suites.stream().map(String::strip).toList()));
    try {
      return new BenchOptions(
          chosen,
          reps != null ? reps : quick ? 1 : 3,
          seconds(warmup != null ? warmup : quick ? 1 : 3),
          seconds(window != null ? window : quick ? 3 : 10),
          backlog != null ? backlog : quick ? 20_000 : 100_000,
          out,
          report,
          quick,
          services);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }

  @Override
  public Integer call() {
    BenchOptions options = options();
    return BenchMain.run(
        options, BenchMain.commandLine(spec.commandLine().getParseResult().originalArgs()));
  }

  private static Duration seconds(double s) {
    if (!Double.isFinite(s) || s < 0 || s > 86_400) {
      throw new IllegalArgumentException("seconds must be between 0 and 86400, was " + s);
    }
    return Duration.ofMillis(Math.round(s * 1000));
  }
}
