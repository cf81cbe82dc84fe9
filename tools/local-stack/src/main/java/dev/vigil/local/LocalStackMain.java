package dev.vigil.local;

import dev.vigil.harness.EmbeddedKafkaBroker;
import dev.vigil.harness.EmbeddedPostgresServer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CountDownLatch;

/**
 * {@code java -jar tools/local-stack/target/local-stack-*.jar [options]}: the whole Vigil pipeline
 * on embedded PostgreSQL and Kafka. See {@link LocalStackOptions#USAGE}.
 */
public final class LocalStackMain {
  private static final String DATABASE = "vigil";

  private LocalStackMain() {}

  public static void main(String[] args) throws InterruptedException {
    // Before any logger exists: the services' own logback.xml files would otherwise compete on the
    // classpath.
    System.setProperty("logback.configurationFile", "local-stack-logback.xml");
    LocalStackOptions options;
    try {
      options = LocalStackOptions.parse(args);
    } catch (IllegalArgumentException e) {
      if (!e.getMessage().isEmpty()) {
        System.err.println(e.getMessage());
      }
      System.err.print(LocalStackOptions.USAGE);
      System.exit(2);
      return;
    }
    System.setProperty(
        "vigil.local.logdir", options.dataDir().resolve("logs").toAbsolutePath().toString());
    System.out.println(
        "Starting Vigil: PostgreSQL, Kafka, receiver, notifier, relay, demo targets, monitor ...");
    Deque<AutoCloseable> parts = new ArrayDeque<>();
    try {
      Path data = options.dataDir().toAbsolutePath();
      EmbeddedPostgresServer postgres =
          EmbeddedPostgresServer.start(
              data.resolve("postgres"), options.postgresPort(), true, false);
      parts.push(postgres);
      postgres.createDatabase(DATABASE);
      EmbeddedKafkaBroker kafka =
          EmbeddedKafkaBroker.start(data.resolve("kafka"), options.kafkaPort());
      parts.push(kafka);
      LocalStack.Backing backing =
          new LocalStack.Backing(
              postgres.jdbcUrl(DATABASE),
              EmbeddedPostgresServer.USER,
              "",
              kafka.bootstrapServers());
      parts.push(LocalStack.start(options, backing, System.out));
    } catch (RuntimeException e) {
      LocalStack.closeAll(parts);
      System.err.println("Vigil could not start: " + e.getMessage());
      System.err.println("Details: " + options.dataDir().resolve("logs/vigil.log"));
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println("Stopping Vigil ...");
                  LocalStack.closeAll(parts);
                  System.out.println("Stopped.");
                  stopped.countDown();
                },
                "local-stack-shutdown"));
    stopped.await();
  }
}
