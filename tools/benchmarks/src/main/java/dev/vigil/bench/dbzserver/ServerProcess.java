package dev.vigil.bench.dbzserver;

import dev.vigil.bench.outbox.OutboxRun;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay running as its own OS process, started with the JDK this benchmark runs on: Debezium
 * Server through its distribution's {@code run.sh} (which {@code exec}s java, so the child's pid is
 * the server's JVM) or Vigil's relay; its console output goes to {@code server.log} in its run
 * directory.
 */
final class ServerProcess implements Contender.Running {
  private static final Logger LOG = LoggerFactory.getLogger(ServerProcess.class);

  /** Variables run.sh and its helper scripts read: cleared so the outer shell cannot change it. */
  private static final List<String> CLEARED =
      List.of(
          "JMX_HOST",
          "JMX_PORT",
          "JMX_EXPORTER_PORT",
          "OTEL_ENABLED",
          "EXTRA_CONNECTOR",
          "DEBEZIUM_OPTS",
          "ENABLE_DEBEZIUM_SCRIPTING",
          "ENABLE_CHRONICLE_QUEUE");

  private final String name;
  private final Process process;
  private final URI ready;
  private final long startedNanos;

  private ServerProcess(String name, Process process, URI ready, long startedNanos) {
    this.name = name;
    this.process = process;
    this.ready = ready;
    this.startedNanos = startedNanos;
  }

  /**
   * Writes {@code properties} to {@code runDir/application.properties} and starts Debezium Server
   * from {@code distDir}; returns at once (see {@link #awaitReady}).
   */
  static ServerProcess debeziumServer(
      String name, Path distDir, Path runDir, Map<String, String> properties, int httpPort) {
    try {
      Files.createDirectories(runDir);
      Path config = runDir.resolve("application.properties").toAbsolutePath();
      if (config.toString().chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException("run directory must not contain spaces: " + config);
      }
      Files.writeString(config, ServerConfig.render(properties));
      ProcessBuilder pb = new ProcessBuilder("bash", "run.sh").directory(distDir.toFile());
      Map<String, String> env = pb.environment();
      CLEARED.forEach(env::remove);
      env.put("JAVA_HOME", System.getProperty("java.home"));
      env.put("JAVA_OPTS", "-Dquarkus.config.locations=" + config);
      return launch(name, pb, runDir, URI.create(local(httpPort) + "/q/health/ready"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start Debezium Server '" + name + "'", e);
    }
  }

  /**
   * Starts Vigil's relay ({@code RelayMain}) as its own JVM with no JVM flags, as run.sh starts
   * Debezium Server, configured by {@code env} like a deployment; ready when {@code /health}
   * answers 200.
   */
  static ServerProcess vigilRelay(
      String name, String classpath, Path runDir, Map<String, String> env, int httpPort) {
    try {
      Files.createDirectories(runDir);
      Path java = Path.of(System.getProperty("java.home"), "bin", "java");
      ProcessBuilder pb =
          new ProcessBuilder(java.toString(), "-cp", classpath, "dev.vigil.relay.RelayMain");
      pb.environment().keySet().removeIf(k -> k.startsWith("VIGIL_"));
      pb.environment().putAll(env);
      pb.environment().put("VIGIL_HTTP_PORT", Integer.toString(httpPort));
      return launch(name, pb, runDir, URI.create(local(httpPort) + "/health"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start Vigil's relay '" + name + "'", e);
    }
  }

  private static ServerProcess launch(String name, ProcessBuilder pb, Path runDir, URI ready)
      throws IOException {
    pb.redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(runDir.resolve("server.log").toFile()));
    long started = System.nanoTime();
    Process process = pb.start();
    LOG.info("process started name={} pid={} ready={} dir={}", name, process.pid(), ready, runDir);
    return new ServerProcess(name, process, ready, started);
  }

  private static String local(int port) {
    return "http://127.0.0.1:" + port;
  }

  @Override
  public long pid() {
    return process.pid();
  }

  /**
   * Waits until the server's readiness endpoint answers 200 and returns the seconds since its
   * start; throws if it exits or is not ready within {@code timeout}.
   */
  @Override
  public double awaitReady(Duration timeout) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "process '" + name + "' exited with " + process.exitValue() + ": see its server.log");
      }
      try {
        HttpResponse<Void> response =
            http.send(
                HttpRequest.newBuilder(ready).timeout(Duration.ofSeconds(2)).build(),
                HttpResponse.BodyHandlers.discarding());
        if (response.statusCode() == 200) {
          return secondsSinceStart();
        }
      } catch (IOException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for " + name, e);
      }
      OutboxRun.sleep(100); // polling the endpoint, not synchronising a test
    }
    throw new IllegalStateException(
        "process '" + name + "' not ready within " + timeout.toSeconds() + " s");
  }

  double secondsSinceStart() {
    return (System.nanoTime() - startedNanos) / 1e9;
  }

  /** Stops it as an operator would (SIGTERM: it stores its offsets), killing it after 30 s. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        LOG.warn("process did not stop in 30 s, killing name={} pid={}", name, pid());
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    LOG.info(
        "process stopped name={} pid={} exit={}",
        name,
        pid(),
        process.isAlive() ? "none" : Integer.toString(process.exitValue()));
  }
}
