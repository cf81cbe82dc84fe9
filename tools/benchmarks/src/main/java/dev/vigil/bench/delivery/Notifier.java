package dev.vigil.bench.delivery;

import dev.vigil.bench.ExtraEnvironment;
import dev.vigil.bench.Infra;
import dev.vigil.kit.Settings;
import dev.vigil.notifier.NotifierConfig;
import dev.vigil.notifier.NotifierService;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/** Starts the notifier in this JVM with its default settings, pointed at a local receiver. */
public final class Notifier {
  /** System property with settings every benchmark notifier gets on top of its defaults. */
  static final String ENV_OVERRIDE = "bench.notifier.env";

  private Notifier() {}

  public static NotifierService start(
      Infra infra, String database, String topic, String group, String webhookUrl) {
    return start(infra, database, topic, group, webhookUrl, Map.of());
  }

  /** As above, with {@code extra} settings (e.g. {@code VIGIL_NOTIFIER_ROUTES}) on top. */
  public static NotifierService start(
      Infra infra,
      String database,
      String topic,
      String group,
      String webhookUrl,
      Map<String, String> extra) {
    Map<String, String> env = settings(infra, database, topic, group, webhookUrl);
    env.putAll(extra);
    return NotifierService.start(new NotifierConfig(new Settings(env)));
  }

  /**
   * Creates {@code database} and returns the settings of a notifier on it, with a fresh webhook
   * secret; for a notifier in this JVM or as its own process.
   */
  public static Map<String, String> settings(
      Infra infra, String database, String topic, String group, String webhookUrl) {
    infra.createDatabase(database);
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", infra.jdbcUrl(database));
    env.put("VIGIL_DB_USER", "postgres");
    env.put("VIGIL_HTTP_PORT", "0");
    env.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", infra.bootstrapServers());
    env.put("VIGIL_TOPIC", topic);
    env.put("VIGIL_NOTIFIER_GROUP_ID", group);
    env.put("VIGIL_WEBHOOK_URL", webhookUrl);
    env.put("VIGIL_WEBHOOK_ALLOW_HTTP", "true");
    env.put("VIGIL_WEBHOOK_SECRETS", "whsec_" + Base64.getEncoder().encodeToString(key));
    env.putAll(ExtraEnvironment.of(ENV_OVERRIDE));
    return env;
  }
}
