package dev.vigil.drills;

import dev.vigil.drills.stack.StackOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Runs the fault drills from the command line ({@code --help} lists the options):
 *
 * <pre>
 * java -jar tools/fault-drills/target/fault-drills-0.1.0-SNAPSHOT.jar --full
 *   --full | --short          sizes (default --short)
 *   --drills a,b              only these drills (relay-kill, relay-failover, bulk-transactions,
 *                             kafka-restart, postgres-restart, notifier-kill, receiver-chaos,
 *                             hostile-records, relay-freeze, oversized-transaction,
 *                             bad-input-sweep, database-restore, connect-worker-kill,
 *                             connect-kafka-restart, postgres-failover)
 *   --results DIR             where RESULTS.md / RESULTS.json go (default: the module directory
 *                             for --full, its target/ directory otherwise); --full with --drills
 *                             replaces those drills' rows and keeps the others'
 * </pre>
 *
 * The false-page and dependencies drills are subcommands with their own stacks and options: {@code
 * false-page --help}, {@code dependencies --help}.
 *
 * <p>Exit code 0 when every drill passed, 1 otherwise, 2 for an unknown option, an unknown drill or
 * a missing value.
 */
@Command(
    name = "fault-drills",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    subcommands = {FalsePageCommand.class, DependenciesCommand.class},
    description = "Kills and restarts Vigil's processes under load and reconciles what arrived.")
public final class DrillMain implements Callable<Integer> {
  /** The documented command that reproduces the full drill from the repository root. */
  public static final String FULL_COMMAND =
      "./mvnw -q -pl tools/fault-drills -am package -DskipTests && "
          + "bin/java -jar tools/fault-drills/target/fault-drills-0.1.0-SNAPSHOT.jar"
          + " --full";

  @Spec private CommandSpec spec;

  @ArgGroup(exclusive = true)
  private Size size = new Size();

  @Option(
      names = "--drills",
      paramLabel = "NAME",
      split = ",",
      description = "only these drills, comma-separated: ${COMPLETION-CANDIDATES}",
      completionCandidates = DrillNames.class)
  private List<String> drills = new ArrayList<>();

  @Option(
      names = "--results",
      paramLabel = "DIR",
      description =
          "where the results go (default: the module directory for --full, its target/ otherwise)")
  private Path results;

  /** --full or --short, never both. */
  static final class Size {
    @Option(names = "--full", description = "the full drill (about ten minutes)")
    boolean full;

    @Option(names = "--short", description = "the short drill (default)")
    boolean quick;
  }

  /** The drill names, for --help and for checking --drills. */
  static final class DrillNames implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return Drills.all().stream().map(Drills.Drill::name).iterator();
    }
  }

  public static void main(String[] args) {
    if (System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", StackOptions.LOGBACK);
    }
    System.exit(commandLine().execute(args));
  }

  /** The parser, for tests: exit 0 on {@code --help}, 2 on bad options. */
  static CommandLine commandLine() {
    return new CommandLine(new DrillMain());
  }

  /** The drill sizes and subset the options ask for; an unknown drill is a usage error. */
  DrillOptions options() {
    DrillOptions options = size.full ? DrillOptions.full() : DrillOptions.quick();
    if (drills.isEmpty()) {
      return options;
    }
    List<String> known = new ArrayList<>();
    new DrillNames().forEach(known::add);
    for (String name : drills) {
      if (!known.contains(name)) {
        throw new ParameterException(
            spec.commandLine(),
            "--drills: unknown drill '" + name + "'; known: " + String.join(",", known));
      }
    }
    return options.onlyDrills(drills);
  }

  @Override
  public Integer call() {
    DrillOptions options = options();
    Path module = moduleDir();
    Path resultsDir = results != null ? results : (size.full ? module : module.resolve("target"));
    String command =
        size.full && options.drills().isEmpty()
            ? FULL_COMMAND
            : FULL_COMMAND.replace(
                "--full", String.join(" ", spec.commandLine().getParseResult().originalArgs()));
    List<DrillResult> outcome =
        runAndReport(options, module.resolve("target"), resultsDir, command);
    boolean passed = !outcome.isEmpty() && outcome.stream().allMatch(DrillResult::passed);
    System.out.println(passed ? "ALL DRILLS PASSED" : "DRILLS FAILED");
    return passed ? 0 : 1;
  }

  /**
   * Runs the suite in a fresh work directory under {@code targetDir}, prints one line per drill and
   * writes {@code RESULTS.md} and {@code RESULTS.json} (for the short drill {@code
   * short-drill.md/json}) into {@code resultsDir}. The databases and the broker's data are deleted
   * afterwards; the service logs are kept under {@code drill-work/<run>/logs}.
   */
  public static List<DrillResult> runAndReport(
      DrillOptions options, Path targetDir, Path resultsDir, String command) {
    Instant started = Instant.now();
    String run =
        options.label()
            + "-"
            + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                .withZone(ZoneOffset.UTC)
                .format(started);
    Path workDir = targetDir.resolve("drill-work").resolve(run).toAbsolutePath();
    String baseName = options.label().equals("full") ? "RESULTS" : "short-drill";
    String code = Report.codeVersion();
    List<DrillResult> outcome =
        DrillSuite.run(
            options,
            workDir,
            soFar ->
                Report.write(
                    resultsDir,
                    baseName,
                    soFar,
                    options,
                    command,
                    started,
                    Duration.between(started, Instant.now()).toSeconds(),
                    code));
    for (DrillResult result : outcome) {
      System.out.println(Report.line(result));
    }
    deleteData(workDir);
    return outcome;
  }

  /** The fault-drills module directory, whether started from the repository root or the module. */
  static Path moduleDir() {
    Path fromRoot = Path.of("tools", "fault-drills");
    return Files.isDirectory(fromRoot) ? fromRoot : Path.of(".");
  }

  private static void deleteData(Path workDir) {
    for (String data : List.of("pg", "kafka")) {
      Path dir = workDir.resolve(data);
      if (!Files.exists(dir)) {
        continue;
      }
      try (Stream<Path> paths = Files.walk(dir)) {
        paths.sorted(Comparator.reverseOrder()).forEach(DrillMain::deleteQuietly);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot delete " + dir, e);
      }
    }
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      System.err.println("cannot delete " + path + ": " + e.getMessage());
    }
  }
}
