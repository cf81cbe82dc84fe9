package dev.vigil.receiver;

import dev.vigil.contract.webhook.WebhookSecret;
import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Redact;
import dev.vigil.kit.SecretFile;
import dev.vigil.kit.Setting;
import dev.vigil.kit.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Reference receiver settings.
 *
 * @param bearerToken when set, requests must carry it as {@code Authorization: Bearer}
 * @param tolerance how far {@code webhook-timestamp} may be from now
 * @param faults initial misbehaviour in {@link ReceiverFaults#parse} form, or null
 */
public record ReceiverConfig(
    String dbUrl,
    String dbUser,
    String dbPassword,
    int httpPort,
    List<WebhookSecret> secrets,
    String bearerToken,
    Duration tolerance,
    String faults) {

  static final Setting<String> DB_URL =
      Setting.string("VIGIL_DB_URL", null, "JDBC URL of the receiver's database.");
  static final Setting<String> DB_USER = Setting.string("VIGIL_DB_USER", "vigil", "Database user.");
  static final Setting<String> DB_PASSWORD =
      Setting.secret("VIGIL_DB_PASSWORD", "", "Database password.");
  static final Setting<Integer> HTTP_PORT =
      Setting.integer("VIGIL_HTTP_PORT", 8090, 0, 65535, "Port to receive webhooks on (0 = any).");
  static final Setting<String> SECRETS =
      Setting.secret(
          "VIGIL_WEBHOOK_SECRETS", "", "Accepted signing secrets, whsec_…, comma-separated.");
  static final Setting<String> SECRETS_FILE =
      Setting.string("VIGIL_WEBHOOK_SECRETS_FILE", "", "File holding the accepted secrets.");
  static final Setting<String> TOKEN =
      Setting.secret("VIGIL_RECEIVER_TOKEN", "", "Bearer token required on requests (optional).");
  static final Setting<Duration> TOLERANCE =
      Setting.duration(
          "VIGIL_RECEIVER_TOLERANCE",
          "5m",
          Duration.ofSeconds(1),
          Duration.ofHours(1),
          "Accepted webhook-timestamp skew.");
  static final Setting<String> FAULTS =
      Setting.string(
          "VIGIL_RECEIVER_FAULTS",
          "",
          "Injected misbehaviour for drills, e.g. 'status=503 times=5; drop times=1'.");

  /** Every setting the receiver reads. */
  public static final List<Setting<?>> SETTINGS =
      List.of(
          DB_URL, DB_USER, DB_PASSWORD, HTTP_PORT, SECRETS, SECRETS_FILE, TOKEN, TOLERANCE, FAULTS);

  public ReceiverConfig {
    Objects.requireNonNull(dbUrl, "dbUrl is missing");
    secrets = List.copyOf(secrets);
    if (secrets.isEmpty()) {
      throw new IllegalArgumentException("the receiver needs at least one signing secret");
    }
    if (bearerToken != null && bearerToken.isBlank()) {
      bearerToken = null;
    }
    if (faults != null) {
      ReceiverFaults.parse(faults);
    }
  }

  /** Reads and validates the receiver's settings. */
  public static ReceiverConfig from(Settings settings) {
    String url = settings.get(DB_URL);
    String user = settings.get(DB_USER);
    String password = settings.get(DB_PASSWORD);
    Integer port = settings.get(HTTP_PORT);
    String secrets = settings.get(SECRETS);
    String secretsFile = settings.get(SECRETS_FILE);
    String token = settings.get(TOKEN);
    Duration tolerance = settings.get(TOLERANCE);
    String faults = settings.get(FAULTS);
    settings.validate();
    try {
      if (secretsFile != null) {
        secrets = SecretFile.read(SECRETS_FILE.key(), Path.of(secretsFile));
      }
      return new ReceiverConfig(
          url,
          user,
          password == null ? "" : password,
          port,
          WebhookSecret.parseList(secrets),
          token,
          tolerance,
          faults);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("invalid receiver configuration: " + e.getMessage());
    }
  }

  /**
   * A receiver on any free port, storing into {@code dbUrl} and accepting {@code secrets}
   * (comma-separated {@code whsec_…}): configured through settings, the way production is.
   */
  public static ReceiverConfig onAnyPort(
      String dbUrl, String dbUser, String dbPassword, String secrets) {
    return from(
        new Settings(
            Map.of(
                DB_URL.key(), dbUrl,
                DB_USER.key(), dbUser,
                DB_PASSWORD.key(), dbPassword,
                HTTP_PORT.key(), "0",
                SECRETS.key(), secrets)));
  }

  @Override
  public String toString() {
    return "ReceiverConfig[db="
        + Redact.withoutQuery(dbUrl)
        + ", port="
        + httpPort
        + ", secrets="
        + secrets.size()
        + ", token="
        + (bearerToken == null ? "none" : "<redacted>")
        + ", tolerance="
        + tolerance
        + "]";
  }
}
