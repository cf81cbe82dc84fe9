package dev.vigil.relay;

import dev.vigil.harness.FreePorts;
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

/** A relay in a JVM of its own ({@link RelayMain}), so a test can {@code kill -9} it. */
final class RelayProcess implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  private final Process process;
  private final int httpPort;
  private final Path log;

  private RelayProcess(Process process, int httpPort, Path log) {
    this.process = process;
    this.httpPort = httpPort;
    this.log = log;
  }

  static RelayProcess start(Map<String, String> env, String name) {
    int port = FreePorts.pick();
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add("-Xmx512m");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(RelayMain.class.getName());
    Path log = Path.of("target", "relay-" + name + "-" + port + ".log");
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(env);
    builder.environment().put("VIGIL_HTTP_PORT", String.valueOf(port));
    builder.redirectErrorStream(true).redirectOutput(log.toFile());
    try {
      Files.createDirectories(log.getParent());
      return new RelayProcess(builder.start(), port, log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start relay process", e);
    }
  }

  /** The /health body, or "" while the process does not answer. */
  String health() {
    try {
      return HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/health"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  boolean isStreaming() {
    return health().contains("\"state\":\"streaming\"");
  }

  /** Sends {@code signal} ({@code STOP}, {@code CONT}) to the process. */
  void signal(String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid())).start();
    if (kill.waitFor() != 0) {
      throw new IOException("kill -" + signal + " " + process.pid() + " failed");
    }
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL: no shutdown hook, no offset flush, no lock release. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGTERM, then the exit code. */
  int terminate() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      throw new AssertionError("relay did not exit after SIGTERM; log: " + log);
    }
    return process.exitValue();
  }

  /** Waits for the process to end by itself; its exit code. */
  int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("relay still running after " + timeout + "; log: " + log);
    }
    return process.exitValue();
  }

  Path log() {
    return log;
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      try {
        kill();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
