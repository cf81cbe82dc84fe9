package dev.vigil.bench.footprint;

import dev.vigil.harness.FreePorts;
import dev.vigil.kit.lifecycle.Closer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Vigil's packaged services started the way their images run them: each its own OS process from its
 * module's jar, with the image's JVM flags ({@link ImageJvmFlags}) and, when those name a
 * class-data-sharing archive, a first start that writes the archive before the measured start maps
 * it (as a container's first start does). Closing stops every process started, last first.
 */
public final class ImageProcesses implements AutoCloseable {
  private final Path root;
  private final List<String> flags;
  private final Path logs;
  private final Closer closer;
  private final Map<String, Double> startupMs = new LinkedHashMap<>();

  private ImageProcesses(Path root, List<String> flags, Path logs, String what) {
    this.root = root;
    this.flags = flags;
    this.logs = logs;
    this.closer = new Closer(what);
  }

  /**
   * Services from this checkout (run from the repository root or {@code tools/benchmarks}), their
   * logs in {@code tools/benchmarks/target/<logFolder>}.
   */
  public static ImageProcesses open(String logFolder) {
    Path root = Files.exists(Path.of("Dockerfile")) ? Path.of(".") : Path.of("../..");
    return new ImageProcesses(
        root,
        ImageJvmFlags.forRun(root.resolve("Dockerfile")),
        root.resolve("tools/benchmarks/target").resolve(logFolder),
        logFolder);
  }

  /**
   * The JVM flags every process gets (the image's, or those of {@code bench.footprint.jvmFlags}).
   */
  public List<String> flags() {
    return flags;
  }

  /**
   * Starts {@code module}'s jar as {@code name} with {@code env} (plus the variables of {@code
   * bench.footprint.env}) and waits until its {@code /health} answers 200.
   */
  ServiceProcess start(String name, String module, int port, Map<String, String> env) {
    Map<String, String> all = new LinkedHashMap<>(env);
    all.putAll(ImageJvmFlags.extraEnvironment());
    Path jar = jar(root, module);
    List<String> own = flags;
    if (ImageJvmFlags.usesArchive(flags)) {
      Path archive = logs.resolve(name + ".jsa");
      try {
        Files.deleteIfExists(archive);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot delete the old archive " + archive, e);
      }
      own = ImageJvmFlags.withArchive(flags, archive);
      try (ServiceProcess first =
          ServiceProcess.start(name + "-first", jar, own, all, port, logs)) {
        startupMs.put(name + "-first", first.awaitReady(Duration.ofSeconds(300)));
      }
    }
    ServiceProcess p = closer.add(name, ServiceProcess.start(name, jar, own, all, port, logs));
    startupMs.put(name, p.awaitReady(Duration.ofSeconds(300))); // generous: a loaded machine
    return p;
  }

  /**
   * As {@link #start(String, String, int, Map)} on a free port, for callers outside this package
   * that need only the service running.
   */
  public void startService(String name, String module, Map<String, String> env) {
    start(name, module, FreePorts.pick(), env);
  }

  /**
   * Process start → {@code /health} 200 in ms, by name; {@code <name>-first} is the start that
   * wrote the archive.
   */
  Map<String, Double> startupMs() {
    return startupMs;
  }

  /** The module's packaged jar ({@code ./mvnw package} puts it and its {@code lib/} there). */
  static Path jar(Path root, String module) {
    Path target = root.resolve(module).resolve("target");
    String prefix = Path.of(module).getFileName() + "-";
    try (var files = Files.list(target)) {
      return files
          .filter(p -> p.getFileName().toString().startsWith(prefix))
          .filter(p -> p.getFileName().toString().endsWith(".jar"))
          .filter(p -> !p.getFileName().toString().matches(".*-(sources|tests|javadoc)\\.jar"))
          .findFirst()
          .orElseThrow(() -> new IllegalStateException("no " + prefix + "*.jar in " + target));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "no packaged " + module + " in " + target + ": run ./mvnw package first", e);
    }
  }

  @Override
  public void close() {
    closer.close();
  }
}
