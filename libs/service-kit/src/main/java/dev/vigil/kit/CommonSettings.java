package dev.vigil.kit;

import dev.vigil.kit.db.PostgresTls;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Settings every service names the same way, defined once and reused (Kafka's {@code
 * CommonClientConfigs}). A service lists the ones it reads in its {@link ConfigDef}, adjusting a
 * default or wording with {@link Setting#withDefault} or {@link Setting#withDoc} where it must.
 */
public final class CommonSettings {
  private static final Pattern JDBC_URL =
      Pattern.compile("jdbc:postgresql://[^/:?,@\\s]+(:\\d{1,5})?/[^/?\\s]+(\\?\\S*)?");

  public static final Setting<String> DB_URL =
      Setting.string("VIGIL_DB_URL", null)
          .check(CommonSettings::isJdbcUrl, "must look like jdbc:postgresql://host:port/database")
          .check(
              CommonSettings::hasValidTls,
              "sslmode must be one of " + String.join(", ", PostgresTls.MODES))
          .doc(
              "JDBC URL of the service's PostgreSQL database; TLS as pgjdbc parameters"
                  + " (?sslmode=verify-full&sslrootcert=/ca.pem, sslcert and sslkey for client"
                  + " certificates), used by every connection of the service.");
  public static final Setting<String> DB_USER =
      Setting.string("VIGIL_DB_USER", null).doc("Database user.");
  public static final Setting<String> DB_PASSWORD =
      Setting.secret("VIGIL_DB_PASSWORD", "").doc("Database password (empty for none).");
  public static final Setting<Integer> DB_POOL_SIZE =
      Setting.integer("VIGIL_DB_POOL_SIZE", 10).range("2", "200").doc("Database connections.");
  public static final Setting<String> KAFKA_BOOTSTRAP_SERVERS =
      Setting.string("VIGIL_KAFKA_BOOTSTRAP_SERVERS", null).doc("Kafka bootstrap servers.");
  public static final Setting<String> TOPIC =
      Setting.string("VIGIL_TOPIC", "vigil.alerts").doc("Topic of alert events.");
  public static final Setting<Integer> HTTP_PORT =
      Setting.integer("VIGIL_HTTP_PORT", 8080)
          .range("0", "65535")
          .doc("HTTP port; 0 picks a free port.");
  public static final Setting<String> INSTANCE_ID =
      Setting.string("VIGIL_INSTANCE_ID", "")
          .doc(
              "Name of this instance in logs, health, leases and client ids; default: host"
                  + " name, pid and a random part.")
          .withComputedDefault(CommonSettings::defaultInstanceId);

  public static final Setting<String> WEBHOOK_SECRETS =
      Setting.secret("VIGIL_WEBHOOK_SECRETS", "")
          .doc("Signing secrets, whsec_<base64>, comma-separated (several while rotating).");

  private CommonSettings() {}

  private static boolean hasValidTls(String jdbcUrl) {
    String mode = PostgresTls.fromJdbcUrl(jdbcUrl).get("sslmode");
    return mode == null || PostgresTls.MODES.contains(mode);
  }

  private static boolean isJdbcUrl(String jdbcUrl) {
    if (!JDBC_URL.matcher(jdbcUrl).matches()) {
      return false;
    }
    try {
      return URI.create(jdbcUrl.substring("jdbc:".length())).getHost() != null;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static String defaultInstanceId() {
    return ManagementFactory.getRuntimeMXBean().getName().replace('@', '-')
        + "-"
        + UUID.randomUUID().toString().substring(0, 8);
  }
}
