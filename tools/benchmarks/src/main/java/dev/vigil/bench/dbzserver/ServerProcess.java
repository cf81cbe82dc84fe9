package dev.vigil.bench.dbzserver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
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
 * A running Debezium Server: its distribution's {@code run.sh} (which {@code exec}s java, so the
 * child's pid is the server's JVM) started with the JDK this benchmark runs on, its configuration
 * in a file of its own, its console output in {@code server.log} next to it.
 */
final class ServerProcess implements AutoCloseable {
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
  private final int httpPort;
  private final long startedNanos;

  private ServerProcess(String name, Process process, int httpPort, long startedNanos) {
    this.name = name;
    this.process = process;
    this.httpPort = httpPort;
    this.startedNanos = startedNanos;
  }

  /**
   * Writes {@code properties} to {@code runDir/application.properties} and starts the server from
   * {@code distDir}; returns at once (see {@link #awaitReady}).
   */
  static ServerProcess start(
      String name, Path distDir, Path runDir, Map<String, String> properties, int httpPort) {
    try {
      Files.createDirectories(runDir);
      Path config = runDir.resolve("application.properties").toAbsolutePath();
      if (config.toString().chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException("run directory must not contain spaces: " + config);
      }
      Files.writeString(config, ServerConfig.render(properties));
      ProcessBuilder pb =
          new ProcessBuilder("bash", "run.sh")
              .directory(distDir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(
                  ProcessBuilder.Redirect.appendTo(runDir.resolve("server.log").toFile()));
      Map<String, String> env = pb.environment();
      CLEARED.forEach(env::remove);
      env.put("JAVA_HOME", System.getProperty("java.home"));
      env.put("JAVA_OPTS", "-Dquarkus.config.locations=" + config);
      long started = System.nanoTime();
      Process process = pb.start();
      LOG.info(
          "debezium server started name={} pid={} httpPort={} config={}",
          name,
          process.pid(),
          httpPort,
          config);
      return new ServerProcess(name, process, httpPort, started);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start Debezium Server '" + name + "'", e);
    }
  }

  /** A free TCP port on the loopback interface for the server's HTTP endpoint. */
  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port for Debezium Server", e);
    }
  }

  long pid() {
    return process.pid();
  }

  /**
   * Waits until the server's readiness endpoint answers 200 and returns the seconds since its
   * start; throws if it exits or is not ready within {@code timeout}.
   */
  double awaitReady(Duration timeout) {
    URI ready = URI.create("http://127.0.0.1:" + httpPort + "/q/health/ready");
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "Debezium Server '" + name + "' exited with " + process.exitValue() + ": see its log");
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
        throw new IllegalStateException("interrupted waiting for Debezium Server", e);
      }
      pause(100); // polling the endpoint, not synchronising a test
    }
    throw new IllegalStateException(
        "Debezium Server '" + name + "' not ready within " + timeout.toSeconds() + " s");
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
        LOG.warn("debezium server did not stop in 30 s, killing name={} pid={}", name, pid());
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    LOG.info("debezium server stopped name={} pid={}", name, pid());
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
