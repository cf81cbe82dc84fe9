package dev.vigil.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * Runs the benchmark suites against a PostgreSQL server and a Kafka broker started for the run,
 * prints the table and writes report.json / report.md (and REPORT.md with {@code --report}).
 */
public final class BenchMain {
  private static final Logger LOG = LoggerFactory.getLogger(BenchMain.class);

  private BenchMain() {}

  /** Exit code 0 after a run, 1 when it failed, 2 for bad options ({@code --help}: 0, no run). */
  public static void main(String[] args) {
    // the in-JVM broker and services may leave non-daemon threads behind
    System.exit(new CommandLine(new BenchCommand()).execute(args));
  }

  static int run(BenchOptions options, String command) {
    Path moduleDir =
        Files.isDirectory(Path.of("tools/benchmarks")) ? Path.of("tools/benchmarks") : Path.of(".");
    Report report = new Report(command, options);
    try (Infra infra = Infra.start(moduleDir.resolve("target/bench-infra"))) {
      report.facts(MachineFacts.collect(infra.pool("postgres", 1)));
      BenchContext context = new BenchContext(infra, options, report);
      Map<String, String> suites = suites();
      for (String name : options.suites()) {
        Suite suite = load(suites.get(name));
        if (suite == null) {
          report.note("suite '" + name + "' is not in this build: no numbers for it");
          continue;
        }
        long started = System.nanoTime();
        LOG.info("suite started name={}", name);
        try {
          suite.run(context);
        } catch (Exception | Error e) {
          LOG.error("suite failed name={}", name, e);
          report.note("suite '" + name + "' failed and is incomplete: " + e);
        }
        LOG.info(
            "suite finished name={} tookS={}", name, (System.nanoTime() - started) / 1_000_000_000);
        report.write(options.outDir(), options.reportFile()); // a later failure keeps these
      }
      report.printTable(System.out);
      report.write(options.outDir(), options.reportFile());
      LOG.info("report written dir={} markdown={}", options.outDir(), options.reportFile());
      return 0;
    } catch (RuntimeException e) {
      LOG.error("benchmark run failed", e);
      return 1;
    }
  }

  /**
   * Suites by name, loaded by class name: the suites that drive the services are compiled only once
   * the services are in the build (see the module's pom), and a missing one is reported.
   */
  private static Map<String, String> suites() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(Cases.LIMIT, "dev.vigil.bench.outbox.DbLimitSuite");
    m.put(Cases.POLLING, "dev.vigil.bench.polling.PollingSuite");
    m.put(Cases.RELAY, "dev.vigil.bench.relay.RelaySuite");
    m.put(Cases.CATCHUP, "dev.vigil.bench.relay.CatchupSuite");
    m.put(Cases.DELIVERY, "dev.vigil.bench.relay.DeliverySuite");
    m.put(Cases.IDLE_OUTBOX, "dev.vigil.bench.relay.IdleOutboxSuite");
    m.put(Cases.RECORDER, "dev.vigil.bench.recorder.RecorderSuite");
    m.put(Cases.PROBING, "dev.vigil.bench.probing.ProbingSuite");
    m.put(Cases.PROBING_MIXED, "dev.vigil.bench.probing.MixedProbingSuite");
    m.put(Cases.PROBING_LOCATIONS, "dev.vigil.bench.probing.LocationsProbingSuite");
    m.put(Cases.DETECT, "dev.vigil.bench.probing.DetectSuite");
    m.put(Cases.E2E, "dev.vigil.bench.delivery.EndToEndSuite");
    m.put(Cases.NOTIFIER, "dev.vigil.bench.delivery.NotifierSuite");
    m.put(Cases.DEBEZIUM_SERVER, "dev.vigil.bench.dbzserver.DebeziumServerSuite");
    m.put(Cases.STORM, "dev.vigil.bench.storm.StormSuite");
    m.put(Cases.STORM_CHANNELS, "dev.vigil.bench.storm.StormChannelsSuite");
    m.put(Cases.FOOTPRINT, "dev.vigil.bench.footprint.FootprintSuite");
    m.put(Cases.RELAY_CPU, "dev.vigil.bench.relay.RelayCpuSuite");
    return m;
  }

  private static Suite load(String className) {
    try {
      return (Suite) Class.forName(className).getDeclaredConstructor().newInstance();
    } catch (ClassNotFoundException | NoClassDefFoundError e) {
      return null;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot create suite " + className, e);
    }
  }

  static String commandLine(List<String> args) {
    StringBuilder sb =
        new StringBuilder(
            "\"$JAVA_HOME/bin/java\" -jar tools/benchmarks/target/benchmarks-0.1.0-SNAPSHOT.jar");
    for (String a : args) {
      sb.append(' ').append(a);
    }
    return sb.toString();
  }
}
