package dev.vigil.drills;

import dev.vigil.drills.falsepage.FalsePageDrill;
import dev.vigil.drills.falsepage.FalsePageOptions;
import dev.vigil.drills.falsepage.FalsePageReport;
import dev.vigil.drills.falsepage.FalsePageResult;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code fault-drills false-page}: the false-page drill of issue 29, on a stack of its own (it
 * probes real targets with three monitors; the other drills write outbox rows without a monitor, so
 * it is not one of their suite). Exit 0 when exactly the real outages were paged, 1 otherwise (as a
 * run with {@code --quorum 1} is expected to: it counts the false pages), 2 for bad options.
 */
@Command(
    name = "false-page",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description =
        "Targets probed from three locations through cuttable paths; random single-location cuts,"
            + " blips and monitor kills, real outages scripted in; pages counted at the receiver.")
final class FalsePageCommand implements Callable<Integer> {
  /** The drill jar, from the repository root (after a package build); the arguments follow. */
  static final String COMMAND =
      "bin/java -jar tools/fault-drills/target/fault-drills-0.1.0-SNAPSHOT.jar";

  @Spec private CommandSpec spec;

  @Option(
      names = "--duration",
      paramLabel = "TIME",
      converter = DurationConverter.class,
      description = "how long faults are injected, e.g. 30m, 60s (default: ${DEFAULT-VALUE})",
      defaultValue = "30m")
  private Duration duration;

  @Option(
      names = "--quorum",
      paramLabel = "N|majority",
      description =
          "failing locations that page (default: ${DEFAULT-VALUE}; 1 = today's behaviour)",
      defaultValue = "majority")
  private String quorum;

  @Option(
      names = "--targets",
      paramLabel = "N",
      description = "targets (default: ${DEFAULT-VALUE})",
      defaultValue = "200")
  private int targets;

  @Option(
      names = "--interval",
      paramLabel = "TIME",
      converter = DurationConverter.class,
      description = "probe interval of every target (default: ${DEFAULT-VALUE})",
      defaultValue = "3s")
  private Duration interval;

  @Option(
      names = "--seed",
      paramLabel = "N",
      description = "seed of the random fault schedule (default: ${DEFAULT-VALUE})",
      defaultValue = "29")
  private long seed;

  @Option(
      names = "--results",
      paramLabel = "DIR",
      description = "where false-page-q<quorum>.md/.json go (default: the module's target/)")
  private Path results;

  /** The options as a record; a bad combination is a usage error naming it. */
  FalsePageOptions options() {
    Integer q;
    if (quorum.equals("majority")) {
      q = null;
    } else {
      try {
        q = Integer.parseInt(quorum);
      } catch (NumberFormatException e) {
        throw new ParameterException(
            spec.commandLine(), "--quorum: a number or 'majority', was '" + quorum + "'");
      }
    }
    try {
      FalsePageOptions sized = FalsePageOptions.issueSized(q, duration, seed);
      return new FalsePageOptions(
          targets,
          sized.locations(),
          q,
          duration,
          interval,
          interval.dividedBy(2),
          sized.failureThreshold(),
          sized.outages(),
          seed);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  @Override
  public Integer call() {
    FalsePageOptions options = options();
    Path module = DrillMain.moduleDir();
    Path target = module.resolve("target");
    String run =
        "false-page-"
            + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                .withZone(ZoneOffset.UTC)
                .format(java.time.Instant.now());
    FalsePageResult result =
        FalsePageDrill.run(options, target.resolve("drill-work").resolve(run).toAbsolutePath());
    String command =
        COMMAND + " " + String.join(" ", spec.commandLine().getParseResult().originalArgs());
    FalsePageReport.write(
        results != null ? results : target,
        result,
        command.strip(),
        Report.loadAverage(),
        Report.codeVersion());
    System.out.println(FalsePageReport.line(result));
    return result.passed() ? 0 : 1;
  }

  /** Durations as 30m, 60s, 1500ms or 1h. */
  static final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      String v = value.strip().toLowerCase(Locale.ROOT);
      int split = 0;
      while (split < v.length() && Character.isDigit(v.charAt(split))) {
        split++;
      }
      if (split == 0) {
        throw new IllegalArgumentException("not a duration: '" + value + "' (e.g. 30m, 60s)");
      }
      long amount = Long.parseLong(v.substring(0, split));
      return switch (v.substring(split)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        case "h" -> Duration.ofHours(amount);
        default ->
            throw new IllegalArgumentException("not a duration: '" + value + "' (e.g. 30m, 60s)");
      };
    }
  }
}
