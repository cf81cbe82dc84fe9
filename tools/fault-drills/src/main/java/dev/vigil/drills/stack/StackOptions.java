package dev.vigil.drills.stack;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * How the stack under test is set up.
 *
 * @param logDir where each service process appends its output
 * @param topic the alert topic the relay writes and the notifier reads
 * @param partitions partitions the relay creates the topic with (at least 2: two notifiers share
 *     it)
 * @param signingSecret the Standard Webhooks secret shared by notifier and receiver ({@code
 *     whsec_…})
 * @param jvmOptions options for every service JVM (heap, GC)
 */
public record StackOptions(
    Path logDir, String topic, int partitions, String signingSecret, List<String> jvmOptions) {

  public StackOptions {
    Objects.requireNonNull(logDir, "logDir is missing");
    Objects.requireNonNull(topic, "topic is missing");
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
    }
    if (signingSecret == null || !signingSecret.startsWith("whsec_")) {
      throw new IllegalArgumentException("signingSecret must be in whsec_ form");
    }
    jvmOptions = List.copyOf(jvmOptions);
  }

  /**
   * One logging configuration for every process; the service jars each bring a {@code logback.xml},
   * which would otherwise clash on the shared classpath.
   */
  public static final String LOGBACK = "logback-drills.xml";

  /**
   * Defaults for drills on a small machine: 6 partitions, a fresh random secret, small heaps, C1
   * only (fast start-up and no C2 compiler threads competing for two cores; plenty for drill
   * rates).
   */
  public static StackOptions defaults(Path logDir) {
    byte[] key = new byte[24];
    new SecureRandom().nextBytes(key);
    return new StackOptions(
        logDir,
        "drill.alerts",
        6,
        "whsec_" + Base64.getEncoder().encodeToString(key),
        List.of(
            "-Xmx384m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-XX:+ExitOnOutOfMemoryError",
            "--enable-native-access=ALL-UNNAMED",
            "-Dlogback.configurationFile=" + LOGBACK));
  }
}
