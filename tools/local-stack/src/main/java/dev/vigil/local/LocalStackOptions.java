package dev.vigil.local;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Command-line options of the local stack. Every port is fixed by default so URLs stay the same
 * across runs.
 *
 * @param dataDir where PostgreSQL, Kafka and the generated secrets live across runs
 * @param targetsFile the user's targets YAML, or null for the demo targets
 * @param webhookUrl the user's webhook URL, or null for the reference receiver
 * @param basePort first of the ports: PostgreSQL base, Kafka base+1, monitor base+2, relay base+3,
 *     notifier base+4, receiver base+5, demo targets base+6
 */
record LocalStackOptions(Path dataDir, Path targetsFile, String webhookUrl, int basePort) {
  static final String USAGE =
      """
      usage: local-stack [--data DIR] [--targets FILE] [--webhook URL] [--base-port N]
        --data DIR       where data is kept across runs (default: .vigil)
        --targets FILE   your own targets YAML instead of the demo targets
        --webhook URL    deliver to your own webhook instead of the reference receiver
        --base-port N    first of seven consecutive ports (default: 18080; 0 = any free ports)
      """;

  LocalStackOptions {
    if (targetsFile != null && !Files.isRegularFile(targetsFile)) {
      throw new IllegalArgumentException("--targets: no such file: " + targetsFile);
    }
    if (webhookUrl != null) {
      URI uri;
      try {
        uri = URI.create(webhookUrl);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--webhook: not a URL: " + webhookUrl);
      }
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
        throw new IllegalArgumentException(
            "--webhook: must be an http or https URL: " + webhookUrl);
      }
    }
    if (basePort != 0 && (basePort < 1024 || basePort > 65_000)) {
      throw new IllegalArgumentException(
          "--base-port: must be 0 (any free ports) or between 1024 and 65000, was " + basePort);
    }
  }

  static LocalStackOptions parse(String... args) {
    Path data = Path.of(".vigil");
    Path targets = null;
    String webhook = null;
    int basePort = 18080;
    for (int i = 0; i < args.length; i++) {
      String option = args[i];
      if (option.equals("--help") || option.equals("-h")) {
        throw new IllegalArgumentException("");
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(option + ": needs a value");
      }
      String value = args[++i];
      switch (option) {
        case "--data" -> data = Path.of(value);
        case "--targets" -> targets = Path.of(value);
        case "--webhook" -> webhook = value;
        case "--base-port" -> {
          try {
            basePort = Integer.parseInt(value);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--base-port: not a number: " + value);
          }
        }
        default -> throw new IllegalArgumentException("unknown option " + option);
      }
    }
    return new LocalStackOptions(data, targets, webhook, basePort);
  }

  private int port(int offset) {
    return basePort == 0 ? 0 : basePort + offset;
  }

  int postgresPort() {
    return port(0);
  }

  int kafkaPort() {
    return port(1);
  }

  int monitorPort() {
    return port(2);
  }

  int relayPort() {
    return port(3);
  }

  int notifierPort() {
    return port(4);
  }

  int receiverPort() {
    return port(5);
  }

  int demoTargetsPort() {
    return port(6);
  }
}
