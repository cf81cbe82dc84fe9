package dev.vigil.bench;

import dev.vigil.bench.outbox.DbLimitSuite;
import dev.vigil.bench.polling.PollingSuite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the benchmark suites against a PostgreSQL server and a Kafka broker started for the run,
 * prints the table and writes report.json / report.md (and REPORT.md with {@code --report}).
 */
public final class BenchMain {
  private static final Logger LOG = LoggerFactory.getLogger(BenchMain.class);

  private BenchMain() {}

  public static void main(String[] args) {
    BenchOptions options;
    try {
      options = BenchOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    int status = run(options, String.join(" ", commandLine(args)));
    System.exit(status); // the in-JVM broker and services may leave non-daemon threads behind
  }

  static int run(BenchOptions options, String command) {
    Path moduleDir =
        Files.isDirectory(Path.of("support/benchmarks"))
            ? Path.of("support/benchmarks")
            : Path.of(".");
    Report report = new Report(command, options);
    try (Infra infra = Infra.start(moduleDir.resolve("target/bench-infra"))) {
      report.facts(MachineFacts.collect(infra.pool("postgres", 1)));
      BenchContext context = new BenchContext(infra, options, report);
      Map<String, Supplier<Suite>> suites = suites();
      for (String name : options.suites()) {
        Supplier<Suite> suite = suites.get(name);
        if (suite == null) {
          report.note("suite '" + name + "' is not implemented in this build: no numbers for it");
          continue;
        }
        long started = System.nanoTime();
        LOG.info("suite started name={}", name);
        try {
          suite.get().run(context);
        } catch (Exception | Error e) {
          LOG.error("suite failed name={}", name, e);
          report.note("suite '" + name + "' failed and is incomplete: " + e);
        }
        LOG.info(
            "suite finished name={} tookS={}", name, (System.nanoTime() - started) / 1_000_000_000);
      }
      Headlines.add(report);
      report.printTable(System.out);
      report.write(options.outDir(), options.reportFile());
      LOG.info("report written dir={} markdown={}", options.outDir(), options.reportFile());
      return 0;
    } catch (RuntimeException e) {
      LOG.error("benchmark run failed", e);
      return 1;
    }
  }

  private static Map<String, Supplier<Suite>> suites() {
    Map<String, Supplier<Suite>> m = new LinkedHashMap<>();
    m.put(DbLimitSuite.NAME, DbLimitSuite::new);
    m.put(PollingSuite.NAME, PollingSuite::new);
    return m;
  }

  private static String commandLine(String[] args) {
    StringBuilder sb =
        new StringBuilder(
            "\"$JAVA_HOME/bin/java\" -jar support/benchmarks/target/benchmarks-0.1.0-SNAPSHOT.jar");
    for (String a : args) {
      sb.append(' ').append(a);
    }
    return sb.toString();
  }
}
