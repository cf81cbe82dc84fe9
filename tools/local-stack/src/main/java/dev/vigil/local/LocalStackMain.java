package dev.vigil.local;

import dev.vigil.harness.EmbeddedKafkaBroker;
import dev.vigil.harness.EmbeddedPostgresServer;
import dev.vigil.kit.lifecycle.Closer;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code java -jar tools/local-stack/target/local-stack-*.jar [options]}: the whole Vigil pipeline
 * on embedded PostgreSQL and Kafka. {@code --help} lists the options; an unknown option or a bad
 * value prints the reason and the usage and exits with 2.
 */
@Command(
    name = "local-stack",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = "Runs the whole Vigil pipeline on embedded PostgreSQL and Kafka, without Docker.")
public final class LocalStackMain implements Callable<Integer> {
  private static final String DATABASE = "vigil";

  @Spec private CommandSpec spec;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      defaultValue = ".vigil",
      description = "where data is kept across runs (default: ${DEFAULT-VALUE})")
  private Path data;

  @Option(
      names = "--targets",
      paramLabel = "FILE",
      description = "your own targets YAML instead of the demo targets")
  private Path targets;

  @Option(
      names = "--webhook",
      paramLabel = "URL",
      description = "deliver to your own webhook instead of the reference receiver")
  private String webhook;

  @Option(
      names = "--alertmanager",
      paramLabel = "URL",
      defaultValue = "${env:VIGIL_ALERTMANAGER_URL}",
      description =
          "also post every alert to this Alertmanager (API v2), e.g. http://127.0.0.1:9093"
              + " (default: $VIGIL_ALERTMANAGER_URL)")
  private String alertmanager;

  @Option(
      names = "--base-port",
      paramLabel = "N",
      defaultValue = "18080",
      description =
          "first of seven consecutive ports (default: ${DEFAULT-VALUE}; 0 = any free ports)")
  private int basePort;

  public static void main(String[] args) {
    // Before any logger exists: the services' own logback.xml files would otherwise compete on the
    // classpath.
    System.setProperty("logback.configurationFile", "local-stack-logback.xml");
    System.exit(commandLine().execute(args));
  }

  /** The parser, for {@link #main} and tests: exit 0 on {@code --help}, 2 on bad options. */
  static CommandLine commandLine() {
    return new CommandLine(new LocalStackMain());
  }

  /** The options as the stack uses them; a bad value is a usage error (exit 2). */
  LocalStackOptions options() {
    try {
      return new LocalStackOptions(data, targets, webhook, basePort, alertmanager);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }

  @Override
  public Integer call() throws InterruptedException {
    LocalStackOptions options = options();
    System.setProperty(
        "vigil.local.logdir", options.dataDir().resolve("logs").toAbsolutePath().toString());
    System.out.println(
        "Starting Vigil: PostgreSQL, Kafka, receiver, notifier, relay, demo targets, monitor ...");
    Closer parts = new Closer("local-stack");
    try {
      Path dir = options.dataDir().toAbsolutePath();
      EmbeddedPostgresServer postgres =
          parts.add(
              EmbeddedPostgresServer.start(
                  dir.resolve("postgres"), options.postgresPort(), true, false));
      postgres.createDatabase(DATABASE);
      EmbeddedKafkaBroker kafka =
          parts.add(EmbeddedKafkaBroker.start(dir.resolve("kafka"), options.kafkaPort()));
      LocalStack.Backing backing =
          new LocalStack.Backing(
              postgres.jdbcUrl(DATABASE),
              EmbeddedPostgresServer.USER,
              "",
              kafka.bootstrapServers());
      parts.add(LocalStack.start(options, backing, Map.of(), System.getenv(), System.out));
    } catch (RuntimeException e) {
      parts.closeAfter(e);
      System.err.println("Vigil could not start: " + e.getMessage());
      System.err.println("Details: " + options.dataDir().resolve("logs/vigil.log"));
      return 1;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println("Stopping Vigil ...");
                  try {
                    parts.close();
                  } catch (RuntimeException e) {
                    System.err.println("stopping Vigil failed: " + e);
                  }
                  System.out.println("Stopped.");
                  stopped.countDown();
                },
                "local-stack-shutdown"));
    stopped.await();
    return 0;
  }
}
