package dev.vigil.drills.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One service running as its own OS process: the same java binary and classpath as the drill JVM,
 * configured only through {@code VIGIL_*} environment variables, output appended to a log file.
 *
 * <p>{@link #kill9()} is an abrupt crash: on Linux {@link Process#destroyForcibly()} sends SIGKILL,
 * and the exit code the drill records (137 = 128 + 9) proves it. No shutdown hook runs, nothing is
 * flushed, locks and leases are left to expire.
 */
public final class ServiceProcess {
  /** Exit code of a process ended by SIGKILL. */
  public static final int SIGKILL_EXIT = 128 + 9;

  private static final Logger LOG = LoggerFactory.getLogger(ServiceProcess.class);
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(1))
          .build();

  private final String name;
  private final String mainClass;
  private final Map<String, String> env;
  private final int httpPort;
  private final Path logFile;
  private final List<String> jvmOptions;
  private final List<String> arguments;
  private Process process;
  private boolean wanted;

  public ServiceProcess(
      String name,
      String mainClass,
      Map<String, String> env,
      int httpPort,
      Path logDir,
      List<String> jvmOptions) {
    this(name, mainClass, List.of(), env, httpPort, logDir, jvmOptions);
  }

  /** A process whose main class also gets {@code arguments} (e.g. a properties file). */
  public ServiceProcess(
      String name,
      String mainClass,
      List<String> arguments,
      Map<String, String> env,
      int httpPort,
      Path logDir,
      List<String> jvmOptions) {
    this.arguments = List.copyOf(arguments);
    this.name = name;
    this.mainClass = mainClass;
    this.env = Map.copyOf(env);
    this.httpPort = httpPort;
    this.logFile = logDir.resolve(name + ".log");
    this.jvmOptions = List.copyOf(jvmOptions);
  }

  public String name() {
    return name;
  }

  public int httpPort() {
    return httpPort;
  }

  public Path logFile() {
    return logFile;
  }

  /** Starts the process (again); its output is appended to {@link #logFile()}. */
  public synchronized void start() {
    if (isAlive()) {
      throw new IllegalStateException(name + " is already running");
    }
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>();
    command.add(java);
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.addAll(arguments);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().keySet().removeIf(key -> key.startsWith("VIGIL_"));
    builder.environment().putAll(env);
    builder.redirectErrorStream(true);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    try {
      Files.createDirectories(logFile.getParent());
      Files.writeString(
          logFile,
          "---- drill: starting " + name + " " + mainClass + "\n",
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      process = builder.start();
      wanted = true;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + " (" + mainClass + ")", e);
    }
    LOG.info("process started name={} pid={} httpPort={}", name, process.pid(), httpPort);
  }

  public synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  public synchronized long pid() {
    return process == null ? -1 : process.pid();
  }

  /**
   * Kills the process with SIGKILL and waits until it is gone.
   *
   * @return the exit code, {@value #SIGKILL_EXIT} when SIGKILL ended it
   */
  public synchronized int kill9() {
    return end(true);
  }

  /** Asks the process to stop (SIGTERM) and waits; kills it if it has not ended after 30 s. */
  public synchronized int stop() {
    wanted = false;
    return end(false);
  }

  /**
   * Sends {@code signal} ({@code STOP} freezes the process as a long GC pause or a frozen VM would,
   * {@code CONT} wakes it) with {@code kill}.
   */
  public synchronized void signal(String signal) {
    if (!isAlive()) {
      throw new IllegalStateException(name + " is not running");
    }
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid())).start();
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run kill -" + signal, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling " + name, e);
    }
    LOG.info("process signalled name={} pid={} signal={}", name, process.pid(), signal);
  }

  /** Waits until the process ended by itself; its exit code, or -1 if it still runs then. */
  public int awaitExit(Duration timeout) {
    Process running;
    synchronized (this) {
      running = process;
    }
    if (running == null) {
      return -1;
    }
    try {
      return running.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? running.exitValue() : -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + name, e);
    }
  }

  /** True when the drill started the process and did not stop it on purpose (a kill is no stop). */
  public synchronized boolean wanted() {
    return wanted;
  }

  /** The exit code of the ended process, or -1 while it runs or before it started. */
  public synchronized int exitCode() {
    return process == null || process.isAlive() ? -1 : process.exitValue();
  }

  private int end(boolean force) {
    if (process == null) {
      return -1;
    }
    Process ending = process;
    try {
      if (force) {
        ending.destroyForcibly();
      } else {
        ending.destroy();
        if (!ending.waitFor(30, TimeUnit.SECONDS)) {
          LOG.warn("process did not stop on SIGTERM, killing name={} pid={}", name, ending.pid());
          ending.destroyForcibly();
        }
      }
      ending.waitFor();
      int exit = ending.exitValue();
      LOG.info(
          "process ended name={} pid={} signal={} exit={}",
          name,
          ending.pid(),
          force ? "KILL" : "TERM",
          exit);
      return exit;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ending.destroyForcibly();
      throw new IllegalStateException("interrupted while stopping " + name, e);
    }
  }

  /** The body of {@code GET /health}, or empty when the process does not answer. */
  public Optional<String> health() {
    if (!isAlive()) {
      return Optional.empty();
    }
    try {
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/health"))
                  .timeout(Duration.ofSeconds(2))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return Optional.of(response.statusCode() + " " + response.body());
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  @Override
  public String toString() {
    return name + "(pid " + pid() + ")";
  }
}
