package dev.vigil.bench.footprint;

import dev.vigil.bench.ExtraEnvironment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JVM flags the service images use, read from the root {@code Dockerfile}'s {@code ENV
 * JAVA_TOOL_OPTIONS="…"} line, so the footprint suite measures what the images run and cannot drift
 * from them.
 */
final class ImageJvmFlags {
  /** System property that replaces the image's flags for an experiment (space-separated). */
  static final String OVERRIDE = "bench.footprint.jvmFlags";

  private static final Pattern ENV_LINE =
      Pattern.compile("^ENV\\s+JAVA_TOOL_OPTIONS=\"([^\"]*)\"\\s*$", Pattern.MULTILINE);

  /**
   * System property with environment variables added to every service process for an experiment
   * (space-separated {@code NAME=value}, e.g. {@code MALLOC_ARENA_MAX=2}).
   */
  static final String ENV_OVERRIDE = "bench.footprint.env";

  private ImageJvmFlags() {}

  /** The variables of {@value #ENV_OVERRIDE}; empty when it is not set. */
  static Map<String, String> extraEnvironment() {
    return ExtraEnvironment.of(ENV_OVERRIDE);
  }

  /** The flags of {@code dockerfile}, or of {@value #OVERRIDE} when that is set. */
  static List<String> forRun(Path dockerfile) {
    String override = System.getProperty(OVERRIDE);
    return override != null ? split(override) : read(dockerfile);
  }

  /**
   * The flags of the {@code ENV JAVA_TOOL_OPTIONS="…"} line of {@code dockerfile}.
   *
   * @throws IllegalStateException when the file has no such line, or more than one
   */
  static List<String> read(Path dockerfile) {
    String text;
    try {
      text = Files.readString(dockerfile);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the image's JVM flags from " + dockerfile, e);
    }
    return parse(text, dockerfile.toString());
  }

  static List<String> parse(String dockerfile, String where) {
    Matcher m = ENV_LINE.matcher(dockerfile);
    if (!m.find()) {
      throw new IllegalStateException("no ENV JAVA_TOOL_OPTIONS=\"…\" line in " + where);
    }
    String flags = m.group(1);
    if (m.find()) {
      throw new IllegalStateException("more than one ENV JAVA_TOOL_OPTIONS line in " + where);
    }
    return split(flags);
  }

  /** The flag that names the image's class-data-sharing archive. */
  static final String ARCHIVE_FLAG = "-XX:SharedArchiveFile=";

  /**
   * {@code flags} with the image's archive path replaced by {@code archive} (a service's own file
   * on this machine); {@code flags} unchanged when they name no archive.
   */
  static List<String> withArchive(List<String> flags, Path archive) {
    return flags.stream()
        .map(f -> f.startsWith(ARCHIVE_FLAG) ? ARCHIVE_FLAG + archive.toAbsolutePath() : f)
        .toList();
  }

  /** Whether {@code flags} name a class-data-sharing archive. */
  static boolean usesArchive(List<String> flags) {
    return flags.stream().anyMatch(f -> f.startsWith(ARCHIVE_FLAG));
  }

  private static List<String> split(String flags) {
    List<String> list =
        Arrays.stream(flags.strip().split("\\s+")).filter(s -> !s.isEmpty()).toList();
    for (String flag : list) {
      if (!flag.startsWith("-")) {
        throw new IllegalStateException("not a JVM flag: '" + flag + "'");
      }
    }
    return list;
  }
}
