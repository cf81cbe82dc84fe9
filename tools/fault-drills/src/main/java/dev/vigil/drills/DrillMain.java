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
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Runs the fault drills from the command line.
 *
 * <pre>
 * java -jar tools/fault-drills/target/fault-drills-0.1.0-SNAPSHOT.jar --full
 *   --full | --short          sizes (default --short)
 *   --drills a,b              only these drills (relay-kill, relay-failover, bulk-transactions,
 *                             kafka-restart, postgres-restart, notifier-kill, receiver-chaos)
 *   --results DIR             where RESULTS.md / RESULTS.json go (default: the module directory
 *                             for --full, its target/ directory otherwise)
 * </pre>
 *
 * Exit code 0 when every drill passed, 1 otherwise.
 */
public final class DrillMain {
  /** The documented command that reproduces the full drill from the repository root. */
  public static final String FULL_COMMAND =
      "./mvnw -q -pl tools/fault-drills -am package -DskipTests && "
          + "\"$JAVA_HOME/bin/java\" -jar tools/fault-drills/target/fault-drills-0.1.0-SNAPSHOT.jar"
          + " --full";

  private DrillMain() {}

  public static void main(String[] args) {
    if (System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", StackOptions.LOGBACK);
    }
    List<String> argv = Arrays.asList(args);
    boolean full = argv.contains("--full");
    DrillOptions options = full ? DrillOptions.full() : DrillOptions.quick();
    int drills = argv.indexOf("--drills");
    if (drills >= 0 && drills + 1 < args.length) {
      options = options.onlyDrills(List.of(args[drills + 1].split(",")));
    }
    Path module = moduleDir();
    int results = argv.indexOf("--results");
    Path resultsDir =
        results >= 0 && results + 1 < args.length
            ? Path.of(args[results + 1])
            : (full ? module : module.resolve("target"));
    String command =
        full && options.drills().isEmpty()
            ? FULL_COMMAND
            : FULL_COMMAND.replace("--full", String.join(" ", args));
    List<DrillResult> outcome =
        runAndReport(options, module.resolve("target"), resultsDir, command);
    boolean passed = !outcome.isEmpty() && outcome.stream().allMatch(DrillResult::passed);
    System.out.println(passed ? "ALL DRILLS PASSED" : "DRILLS FAILED");
    System.exit(passed ? 0 : 1);
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
                    Duration.between(started, Instant.now()).toSeconds()));
    for (DrillResult result : outcome) {
      System.out.println(Report.line(result));
    }
    deleteData(workDir);
    return outcome;
  }

  /** The fault-drills module directory, whether started from the repository root or the module. */
  static Path moduleDir() {
    Path fromRoot = Path.of("support", "fault-drills");
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
