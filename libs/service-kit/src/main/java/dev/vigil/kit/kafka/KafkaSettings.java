package dev.vigil.kit.kafka;

import dev.vigil.kit.ConfigDef;
import dev.vigil.kit.Setting;
import dev.vigil.kit.Values;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The Kafka security settings every Kafka-using service declares, once (Kafka's {@code
 * CommonClientConfigs}): security protocol, SASL mechanism and credentials, trust store and key
 * store, plus the {@code VIGIL_KAFKA_PROPERTY_<name>} pass-through. {@link #addTo} appends them and
 * the rules that tie them together, so a bad combination stops start-up (exit 2) naming the
 * settings.
 */
public final class KafkaSettings {
  /** Pass-through prefix: {@code VIGIL_KAFKA_PROPERTY_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM=}. */
  public static final String PROPERTY_PREFIX = "VIGIL_KAFKA_PROPERTY_";

  /** No control characters: they would break the JAAS configuration the credentials go into. */
  private static final Pattern PRINTABLE = Pattern.compile("[^\\p{Cntrl}]+");

  public static final Setting<String> SECURITY_PROTOCOL =
      Setting.string("VIGIL_KAFKA_SECURITY_PROTOCOL", "PLAINTEXT")
          .oneOf("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
          .doc(
              "Protocol of every Kafka client of the service: SASL_SSL (SASL over TLS), SSL (TLS,"
                  + " mutual with a key store), SASL_PLAINTEXT or PLAINTEXT.");
  public static final Setting<String> SASL_MECHANISM =
      Setting.string("VIGIL_KAFKA_SASL_MECHANISM", "")
          .oneOf("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
          .doc(
              "SASL mechanism for the username and password below; other mechanisms (OAUTHBEARER,"
                  + " AWS_MSK_IAM) go through VIGIL_KAFKA_PROPERTY_SASL_MECHANISM and"
                  + " VIGIL_KAFKA_PROPERTY_SASL_JAAS_CONFIG.");
  public static final Setting<String> SASL_USERNAME =
      Setting.string("VIGIL_KAFKA_SASL_USERNAME", "")
          .matching(PRINTABLE, "printable text")
          .doc("SASL username.");
  public static final Setting<String> SASL_PASSWORD =
      Setting.secret("VIGIL_KAFKA_SASL_PASSWORD", "")
          .check(p -> p.isEmpty() || PRINTABLE.matcher(p).matches(), "must be printable text")
          .doc("SASL password.");
  public static final Setting<String> TRUSTSTORE_LOCATION =
      Setting.string("VIGIL_KAFKA_SSL_TRUSTSTORE_LOCATION", "")
          .check(KafkaSettings::readableFile, "must be a readable file")
          .doc(
              "Trust store with the CA of the brokers' certificates; empty = the JVM's default"
                  + " trust (enough for public CAs such as MSK's).");
  public static final Setting<String> TRUSTSTORE_TYPE =
      Setting.string("VIGIL_KAFKA_SSL_TRUSTSTORE_TYPE", "")
          .oneOf("PKCS12", "JKS", "PEM")
          .doc("Trust store format; empty = Kafka's default (JKS, which also reads PKCS12).");
  public static final Setting<String> TRUSTSTORE_PASSWORD =
      Setting.secret("VIGIL_KAFKA_SSL_TRUSTSTORE_PASSWORD", "").doc("Trust store password.");
  public static final Setting<String> KEYSTORE_LOCATION =
      Setting.string("VIGIL_KAFKA_SSL_KEYSTORE_LOCATION", "")
          .check(KafkaSettings::readableFile, "must be a readable file")
          .doc("Key store with this client's certificate and key, for mutual TLS.");
  public static final Setting<String> KEYSTORE_TYPE =
      Setting.string("VIGIL_KAFKA_SSL_KEYSTORE_TYPE", "")
          .oneOf("PKCS12", "JKS", "PEM")
          .doc("Key store format; empty = Kafka's default (JKS, which also reads PKCS12).");
  public static final Setting<String> KEYSTORE_PASSWORD =
      Setting.secret("VIGIL_KAFKA_SSL_KEYSTORE_PASSWORD", "").doc("Key store password.");
  public static final Setting<String> KEY_PASSWORD =
      Setting.secret("VIGIL_KAFKA_SSL_KEY_PASSWORD", "")
          .doc("Password of the key in the key store, when it differs from the store's.");

  /** The settings, in README order. */
  public static final List<Setting<?>> ALL =
      List.of(
          SECURITY_PROTOCOL,
          SASL_MECHANISM,
          SASL_USERNAME,
          SASL_PASSWORD,
          TRUSTSTORE_LOCATION,
          TRUSTSTORE_TYPE,
          TRUSTSTORE_PASSWORD,
          KEYSTORE_LOCATION,
          KEYSTORE_TYPE,
          KEYSTORE_PASSWORD,
          KEY_PASSWORD);

  private KafkaSettings() {}

  /** {@code definition} with the Kafka security settings, their rules and the pass-through. */
  public static ConfigDef addTo(ConfigDef definition) {
    return definition
        .and(ALL)
        .prefixed(
            PROPERTY_PREFIX,
            "Any other Kafka client property, for every Kafka client of the service: the name"
                + " upper-cased with dots as underscores (VIGIL_KAFKA_PROPERTY_SSL_ENDPOINT_"
                + "IDENTIFICATION_ALGORITHM=). Properties the service sets itself are refused.")
        .rule(
            "%s, %s and %s go together: set all three or none"
                .formatted(SASL_MECHANISM, SASL_USERNAME, SASL_PASSWORD),
            v -> {
              int set =
                  count(v, SASL_MECHANISM) + count(v, SASL_USERNAME) + count(v, SASL_PASSWORD);
              return set == 0 || set == 3;
            })
        .rule(
            "%s is set, so %s must be SASL_SSL or SASL_PLAINTEXT"
                .formatted(SASL_MECHANISM, SECURITY_PROTOCOL),
            v -> v.get(SASL_MECHANISM) == null || sasl(v))
        .rule(
            "%s is SASL_SSL or SASL_PLAINTEXT, so %s, %s and %s (or %sSASL_JAAS_CONFIG) are needed"
                .formatted(
                    SECURITY_PROTOCOL,
                    SASL_MECHANISM,
                    SASL_USERNAME,
                    SASL_PASSWORD,
                    PROPERTY_PREFIX),
            v ->
                !sasl(v)
                    || v.get(SASL_MECHANISM) != null
                    || v.prefixed(PROPERTY_PREFIX).containsKey("SASL_JAAS_CONFIG"))
        .rule(
            "%s, %s and their passwords need %s SSL or SASL_SSL"
                .formatted(TRUSTSTORE_LOCATION, KEYSTORE_LOCATION, SECURITY_PROTOCOL),
            v ->
                tls(v)
                    || (count(v, TRUSTSTORE_LOCATION)
                            + count(v, KEYSTORE_LOCATION)
                            + count(v, TRUSTSTORE_PASSWORD)
                            + count(v, KEYSTORE_PASSWORD)
                            + count(v, KEY_PASSWORD))
                        == 0)
        .rule(
            "%s needs %s".formatted(TRUSTSTORE_PASSWORD, TRUSTSTORE_LOCATION),
            v -> v.get(TRUSTSTORE_PASSWORD) == null || v.get(TRUSTSTORE_LOCATION) != null)
        .rule(
            "%s and %s need %s".formatted(KEYSTORE_PASSWORD, KEY_PASSWORD, KEYSTORE_LOCATION),
            v ->
                v.get(KEYSTORE_LOCATION) != null
                    || (v.get(KEYSTORE_PASSWORD) == null && v.get(KEY_PASSWORD) == null))
        .rule(
            "%s (PKCS12 or JKS) needs %s".formatted(KEYSTORE_LOCATION, KEYSTORE_PASSWORD),
            v ->
                v.get(KEYSTORE_LOCATION) == null
                    || "PEM".equals(v.get(KEYSTORE_TYPE))
                    || v.get(KEYSTORE_PASSWORD) != null);
  }

  static boolean sasl(Values v) {
    return Objects.requireNonNullElse(v.get(SECURITY_PROTOCOL), "").startsWith("SASL_");
  }

  static boolean tls(Values v) {
    String protocol = v.get(SECURITY_PROTOCOL);
    return "SSL".equals(protocol) || "SASL_SSL".equals(protocol);
  }

  private static int count(Values v, Setting<String> setting) {
    String value = v.get(setting);
    return value == null || value.isEmpty() ? 0 : 1;
  }

  private static boolean readableFile(String path) {
    try {
      Path file = Path.of(path);
      return Files.isRegularFile(file) && Files.isReadable(file);
    } catch (InvalidPathException e) {
      return false;
    }
  }
}
