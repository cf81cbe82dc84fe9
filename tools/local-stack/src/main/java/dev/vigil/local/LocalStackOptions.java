package dev.vigil.local;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Options of the local stack (parsed from the command line by {@link LocalStackMain}). Every port
 * is fixed by default so URLs stay the same across runs.
 *
 * @param dataDir where PostgreSQL, Kafka and the generated secrets live across runs
 * @param targetsFile the user's targets YAML, or null for the demo targets
 * @param webhookUrl the user's webhook URL, or null for the reference receiver
 * @param basePort first of the ports: PostgreSQL base, Kafka base+1, monitor base+2, relay base+3,
 *     notifier base+4, receiver base+5, demo targets base+6
 * @param alertmanagerUrl an Alertmanager that also gets every alert (API v2), or null
 */
record LocalStackOptions(
    Path dataDir, Path targetsFile, String webhookUrl, int basePort, String alertmanagerUrl) {

  /** Without an Alertmanager. */
  LocalStackOptions(Path dataDir, Path targetsFile, String webhookUrl, int basePort) {
    this(dataDir, targetsFile, webhookUrl, basePort, null);
  }

  LocalStackOptions {
    if (alertmanagerUrl != null && alertmanagerUrl.isBlank()) {
      alertmanagerUrl = null;
    }
    if (alertmanagerUrl != null) {
      URI uri;
      try {
        uri = URI.create(alertmanagerUrl);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--alertmanager: not a URL: " + alertmanagerUrl);
      }
      if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
          || uri.getHost() == null) {
        throw new IllegalArgumentException(
            "--alertmanager: must be an http or https URL: " + alertmanagerUrl);
      }
    }
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

  /**
   * The notifier's routes when an Alertmanager is set: every service to the signed webhook and to
   * the Alertmanager (channel {@code alertmanager}); null otherwise.
   */
  String notifierRoutes() {
    if (alertmanagerUrl == null) {
      return null;
    }
    return """
        {"channels": {"alertmanager": {"type": "alertmanager", "url": "%s"}},
         "routes": [{"match": "*", "channels": ["webhook", "alertmanager"]}]}
        """
        .formatted(alertmanagerUrl);
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
