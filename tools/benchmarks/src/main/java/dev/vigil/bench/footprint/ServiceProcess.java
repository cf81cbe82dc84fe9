package dev.vigil.bench.footprint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Vigil service as its own OS process, started the way its image starts it: {@code java <image
 * flags> -jar <module jar>} (the jar's manifest puts {@code lib/} on the class path), configured
 * only by {@code VIGIL_*} environment variables, output to a log file.
 */
final class ServiceProcess implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ServiceProcess.class);
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(1))
          .build();

  private final String name;
  private final int httpPort;
  private final Process process;
  private final long startedNanos;

  private ServiceProcess(String name, int httpPort, Process process, long startedNanos) {
    this.name = name;
    this.httpPort = httpPort;
    this.process = process;
    this.startedNanos = startedNanos;
  }

  /**
   * Starts {@code jar} with {@code flags} and {@code env} (plus {@code VIGIL_HTTP_PORT}); no other
   * {@code VIGIL_*} or {@code JAVA_TOOL_OPTIONS} of this JVM's environment is passed on.
   */
  static ServiceProcess start(
      String name,
      Path jar,
      List<String> flags,
      Map<String, String> env,
      int httpPort,
      Path logDir) {
    List<String> command = new ArrayList<>();
    command.add(java());
    command.addAll(flags);
    command.add("-jar");
    command.add(jar.toString());
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().keySet().removeIf(k -> k.startsWith("VIGIL_") || k.startsWith("JAVA_"));
    builder.environment().putAll(env);
    builder.environment().put("VIGIL_HTTP_PORT", String.valueOf(httpPort));
    builder.redirectErrorStream(true);
    Path log = logDir.resolve(name + ".log");
    builder.redirectOutput(log.toFile());
    try {
      Files.createDirectories(logDir);
      long started = System.nanoTime();
      Process process = builder.start();
      LOG.info("footprint process started name={} pid={} log={}", name, process.pid(), log);
      return new ServiceProcess(name, httpPort, process, started);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + " from " + jar, e);
    }
  }

  /** The java binary of this JVM (the benchmark runs on a JDK, which also has jcmd). */
  static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  String name() {
    return name;
  }

  long pid() {
    return process.pid();
  }

  int httpPort() {
    return httpPort;
  }

  /**
   * Waits until {@code GET /health} answers 200 and returns the time from the process start to
   * then, in ms.
   *
   * @throws IllegalStateException when the process ends or is not ready within {@code limit}
   */
  double awaitReady(Duration limit) {
    long deadline = startedNanos + limit.toNanos();
    while (!healthy()) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            name + " ended with exit code " + process.exitValue() + " before it was ready");
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(name + " not ready within " + limit.toSeconds() + " s");
      }
      pause(10);
    }
    return (System.nanoTime() - startedNanos) / 1e6;
  }

  private boolean healthy() {
    try {
      HttpResponse<Void> response =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/health"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      return response.statusCode() == 200;
    } catch (IOException e) {
      return false; // not listening yet
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for " + name, e);
    }
  }

  static void pause(long millis) {
    try {
      Thread.sleep(millis); // polling a process, not synchronising a test
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Stops the process (SIGTERM, then SIGKILL after 30 s). */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        LOG.warn("footprint process did not stop on SIGTERM, killing name={}", name);
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
