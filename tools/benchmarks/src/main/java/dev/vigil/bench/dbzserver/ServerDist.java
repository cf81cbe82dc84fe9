package dev.vigil.bench.dbzserver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Where the build's {@code -Pdebezium-server} profile unpacked the stock distribution: {@code
 * target/debezium-server/debezium-server} with its {@code run.sh}, {@code lib/} and runner jar.
 */
final class ServerDist {
  private ServerDist() {}

  /** The distribution's directory under {@code targetDir}, or null when it is not unpacked. */
  static Path find(Path targetDir) {
    Path dist = targetDir.resolve("debezium-server").resolve("debezium-server").toAbsolutePath();
    boolean complete =
        Files.isRegularFile(dist.resolve("run.sh"))
            && Files.isDirectory(dist.resolve("lib"))
            && version(dist) != null;
    return complete ? dist : null;
  }

  /** The version in the runner jar's name, e.g. 3.6.1.Final, or null without one. */
  static String version(Path dist) {
    try (Stream<Path> files = Files.list(dist)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(f -> f.startsWith("debezium-server-") && f.endsWith("-runner.jar"))
          .map(f -> f.substring(f.lastIndexOf("dist-") + 5, f.length() - "-runner.jar".length()))
          .findFirst()
          .orElse(null);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dist, e);
    }
  }
}
