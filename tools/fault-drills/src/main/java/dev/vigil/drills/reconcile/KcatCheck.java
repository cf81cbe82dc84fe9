package dev.vigil.drills.reconcile;

import dev.vigil.contract.AlertTopic;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Reads the drill's topic once more with an outside client, Debian's {@code kcat} (librdkafka), at
 * {@code isolation.level=read_committed}, and counts the records of the drill's events: what a
 * consumer team would see with the README's kcat command. The drill fails when kcat and the Java
 * reader disagree.
 */
public final class KcatCheck {
  private static final long TIMEOUT_SECONDS = 120;

  private KcatCheck() {}

  /** What kcat saw of the drill's events: records (copies included) and distinct event ids. */
  public record Seen(long records, long distinct) {
    public long duplicates() {
      return records - distinct;
    }
  }

  /** The kcat executable on the PATH, if installed. */
  public static Optional<Path> executable() {
    String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
    for (String dir : path.split(java.io.File.pathSeparator)) {
      Path candidate = Path.of(dir, "kcat");
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /**
   * Reads {@code topic} from the beginning to its last stable offset with kcat, read_committed, and
   * counts the records whose event-id header is one of {@code drillEvents}.
   */
  public static Seen readCommitted(
      Path kcat, String bootstrapServers, String topic, Set<UUID> drillEvents)
      throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(
                List.of(
                    kcat.toString(),
                    "-C",
                    "-b",
                    bootstrapServers,
                    "-t",
                    topic,
                    "-o",
                    "beginning",
                    "-e",
                    "-q",
                    "-X",
                    "isolation.level=read_committed",
                    "-f",
                    "%h\\n"))
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    long records = 0;
    Set<UUID> distinct = new HashSet<>();
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        UUID id = eventId(line);
        if (id != null && drillEvents.contains(id)) {
          records++;
          distinct.add(id);
        }
      }
    }
    if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IOException("kcat did not finish within " + TIMEOUT_SECONDS + " s");
    }
    if (process.exitValue() != 0) {
      throw new IOException("kcat exited with " + process.exitValue());
    }
    return new Seen(records, distinct.size());
  }

  /** The event id in kcat's {@code %h} output ({@code name=value,name=value}), or null. */
  static UUID eventId(String headers) {
    String prefix = AlertTopic.HEADER_EVENT_ID + "=";
    for (String header : headers.split(",")) {
      if (header.startsWith(prefix)) {
        try {
          return UUID.fromString(header.substring(prefix.length()));
        } catch (IllegalArgumentException e) {
          return null;
        }
      }
    }
    return null;
  }
}
