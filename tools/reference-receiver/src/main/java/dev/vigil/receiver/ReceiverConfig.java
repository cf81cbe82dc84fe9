package dev.vigil.receiver;

import static dev.vigil.kit.CommonSettings.DB_PASSWORD;
import static dev.vigil.kit.CommonSettings.DB_URL;
import static dev.vigil.kit.CommonSettings.DB_USER;
import static dev.vigil.kit.CommonSettings.HTTP_PORT;
import static dev.vigil.kit.CommonSettings.WEBHOOK_SECRETS;

import dev.vigil.contract.webhook.WebhookSecret;
import dev.vigil.kit.ConfigDef;
import dev.vigil.kit.ConfigException;
import dev.vigil.kit.ServiceConfig;
import dev.vigil.kit.Setting;
import dev.vigil.kit.Settings;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Reference receiver settings, validated once; secrets never appear in {@link #toString()}. */
public final class ReceiverConfig extends ServiceConfig {
  public static final Setting<String> TOKEN =
      Setting.secret("VIGIL_RECEIVER_TOKEN", "")
          .doc("Bearer token required on requests (optional).");
  public static final Setting<Duration> TOLERANCE =
      Setting.duration("VIGIL_RECEIVER_TOLERANCE", "5m")
          .range("1s", "1h")
          .doc("Accepted webhook-timestamp skew.");
  public static final Setting<String> FAULTS =
      Setting.string("VIGIL_RECEIVER_FAULTS", "")
          .check(
              faults -> ReceiverFaults.parse(faults) != null,
              "must be fault rules as POST /_faults takes them")
          .doc("Injected misbehaviour for drills, e.g. 'status=503 times=5; drop times=1'.");

  /** Every setting of the receiver, in README order. */
  public static final ConfigDef DEFINITION =
      ConfigDef.of(
          DB_URL,
          DB_USER,
          DB_PASSWORD,
          HTTP_PORT.withDefault("8090").doc("Port to receive webhooks on; 0 picks a free port."),
          WEBHOOK_SECRETS.doc("Accepted signing secrets, whsec_<base64>, comma-separated."),
          TOKEN,
          TOLERANCE,
          FAULTS);

  private final List<WebhookSecret> secrets;

  /**
   * Reads and validates the receiver's settings.
   *
   * @throws ConfigException listing every bad key
   */
  public ReceiverConfig(Settings settings) {
    super(DEFINITION, settings);
    try {
      this.secrets = WebhookSecret.parseList(webhookSecrets());
    } catch (IllegalArgumentException e) {
      throw new ConfigException(WEBHOOK_SECRETS.key() + " is invalid: " + e.getMessage());
    }
  }

  /**
   * A receiver on any free port, storing into {@code dbUrl} and accepting {@code secrets}
   * (comma-separated {@code whsec_…}): configured through settings, the way production is.
   */
  public static ReceiverConfig onAnyPort(
      String dbUrl, String dbUser, String dbPassword, String secrets) {
    return new ReceiverConfig(
        new Settings(
            Map.of(
                DB_URL.key(), dbUrl,
                DB_USER.key(), dbUser,
                DB_PASSWORD.key(), dbPassword,
                HTTP_PORT.key(), "0",
                WEBHOOK_SECRETS.key(), secrets)));
  }

  /** The accepted signing secrets (at least one). */
  public List<WebhookSecret> secrets() {
    return secrets;
  }
}
