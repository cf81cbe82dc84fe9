package dev.vigil.harness.failover;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A base backup without {@code pg_basebackup} (the embedded binaries have none): a cold copy of a
 * data directory, and server settings appended to a data directory's {@code postgresql.auto.conf}.
 */
final class ColdCopy {
  private static final Set<String> NOT_COPIED =
      Set.of("postmaster.pid", "postmaster.opts", "epg-lock", "server.log");

  private ColdCopy() {}

  /**
   * Copies the data directory {@code from} (of a server shut down cleanly) to {@code to}, leaving
   * out what {@code pg_basebackup} leaves out: replication slots' state, the postmaster's and the
   * embedded library's lock files.
   */
  static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path source : (Iterable<Path>) files::iterator) {
        Path relative = from.relativize(source);
        Path target = to.resolve(relative.toString());
        boolean slotState = relative.startsWith("pg_replslot") && relative.getNameCount() > 1;
        if (slotState || NOT_COPIED.contains(relative.getFileName().toString())) {
          continue;
        }
        if (Files.isDirectory(source)) {
          Files.createDirectories(target);
        } else {
          Files.copy(source, target);
        }
      }
    }
    // PostgreSQL refuses a data directory others can read.
    Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwx------"));
  }

  /**
   * Server settings whose values hold spaces or {@code *} go in the file, not on a command line.
   */
  static void appendSettings(Path dataDir, Map<String, String> settings) throws IOException {
    StringBuilder lines = new StringBuilder("\n");
    settings.forEach(
        (key, value) ->
            lines.append(key).append(" = '").append(value.replace("'", "''")).append("'\n"));
    Files.writeString(
        dataDir.resolve("postgresql.auto.conf"), lines.toString(), StandardOpenOption.APPEND);
  }
}
