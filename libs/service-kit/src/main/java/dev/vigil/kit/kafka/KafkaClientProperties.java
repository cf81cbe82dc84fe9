package dev.vigil.kit.kafka;

import static dev.vigil.kit.kafka.KafkaSettings.KEYSTORE_LOCATION;
import static dev.vigil.kit.kafka.KafkaSettings.KEYSTORE_PASSWORD;
import static dev.vigil.kit.kafka.KafkaSettings.KEYSTORE_TYPE;
import static dev.vigil.kit.kafka.KafkaSettings.KEY_PASSWORD;
import static dev.vigil.kit.kafka.KafkaSettings.PROPERTY_PREFIX;
import static dev.vigil.kit.kafka.KafkaSettings.SASL_MECHANISM;
import static dev.vigil.kit.kafka.KafkaSettings.SASL_PASSWORD;
import static dev.vigil.kit.kafka.KafkaSettings.SASL_USERNAME;
import static dev.vigil.kit.kafka.KafkaSettings.SECURITY_PROTOCOL;
import static dev.vigil.kit.kafka.KafkaSettings.TRUSTSTORE_LOCATION;
import static dev.vigil.kit.kafka.KafkaSettings.TRUSTSTORE_PASSWORD;
import static dev.vigil.kit.kafka.KafkaSettings.TRUSTSTORE_TYPE;

import dev.vigil.kit.ConfigException;
import dev.vigil.kit.ServiceConfig;
import dev.vigil.kit.Setting;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The security and pass-through properties every Kafka client of a service gets (producer, consumer
 * and admin alike), built once from the {@link KafkaSettings}. A service adds them last to each
 * client's own properties. {@link #toString()} shows the property names only: values may be
 * credentials.
 */
public final class KafkaClientProperties {
  /**
   * Properties the services set themselves because their guarantees depend on them (ordering,
   * idempotence, exactly-once, offsets only after the receipt): a pass-through cannot change them.
   */
  static final Set<String> OWNED =
      Set.of(
          "bootstrap.servers",
          "key.serializer",
          "value.serializer",
          "key.deserializer",
          "value.deserializer",
          "acks",
          "enable.idempotence",
          "max.in.flight.requests.per.connection",
          "delivery.timeout.ms",
          "transactional.id",
          "isolation.level",
          "group.id",
          "enable.auto.commit",
          "auto.offset.reset");

  private static final Pattern NAME = Pattern.compile("[A-Z0-9]+(_[A-Z0-9]+)*");

  private final Map<String, Object> properties;

  private KafkaClientProperties(Map<String, Object> properties) {
    this.properties = Collections.unmodifiableMap(properties);
  }

  /**
   * The properties of {@code config}'s Kafka settings and pass-through variables.
   *
   * @throws ConfigException naming each pass-through variable that is malformed, owned by the
   *     service or set twice
   */
  public static KafkaClientProperties of(ServiceConfig config) {
    Map<String, Object> props = new LinkedHashMap<>();
    Map<String, String> origin = new LinkedHashMap<>();
    props.put("security.protocol", config.get(SECURITY_PROTOCOL));
    origin.put("security.protocol", SECURITY_PROTOCOL.key());
    String mechanism = config.get(SASL_MECHANISM);
    if (mechanism != null) {
      props.put("sasl.mechanism", mechanism);
      origin.put("sasl.mechanism", SASL_MECHANISM.key());
      props.put(
          "sasl.jaas.config",
          jaasConfig(mechanism, config.get(SASL_USERNAME), config.get(SASL_PASSWORD)));
      origin.put("sasl.jaas.config", SASL_USERNAME.key() + "/" + SASL_PASSWORD.key());
    }
    put(props, origin, config, "ssl.truststore.location", TRUSTSTORE_LOCATION);
    put(props, origin, config, "ssl.truststore.type", TRUSTSTORE_TYPE);
    put(props, origin, config, "ssl.truststore.password", TRUSTSTORE_PASSWORD);
    put(props, origin, config, "ssl.keystore.location", KEYSTORE_LOCATION);
    put(props, origin, config, "ssl.keystore.type", KEYSTORE_TYPE);
    put(props, origin, config, "ssl.keystore.password", KEYSTORE_PASSWORD);
    put(props, origin, config, "ssl.key.password", KEY_PASSWORD);

    List<String> problems = new ArrayList<>();
    config
        .prefixed(PROPERTY_PREFIX)
        .forEach(
            (name, value) -> {
              String variable = PROPERTY_PREFIX + name;
              if (!NAME.matcher(name).matches()) {
                problems.add(
                    variable
                        + " is not a property name: use upper case, digits and single underscores");
                return;
              }
              String property = name.toLowerCase(Locale.ROOT).replace('_', '.');
              if (OWNED.contains(property)) {
                problems.add(variable + " sets " + property + ", which the service sets itself");
              } else if (origin.containsKey(property)) {
                problems.add(
                    variable + " sets " + property + ", already set by " + origin.get(property));
              } else {
                props.put(property, value);
                origin.put(property, variable);
              }
            });
    if (!problems.isEmpty()) {
      throw new ConfigException("invalid configuration: " + String.join("; ", problems));
    }
    return new KafkaClientProperties(props);
  }

  /**
   * A client's own properties with these added last (a pass-through may tune what the client sets,
   * except the {@link #OWNED} properties), as a new map.
   */
  public Map<String, Object> on(Map<String, ?> own) {
    Map<String, Object> all = new LinkedHashMap<>(own);
    all.putAll(properties);
    return all;
  }

  /** Every property, to add last to a client's own properties. Values may be credentials. */
  public Map<String, Object> asMap() {
    return properties;
  }

  /**
   * The JAAS line of the username/password login module of {@code mechanism}. The values are quoted
   * with backslash escapes, so a quote, a backslash or a semicolon in them cannot end the option or
   * add another; control characters are refused by the settings.
   */
  static String jaasConfig(String mechanism, String username, String password) {
    String module =
        mechanism.equals("PLAIN")
            ? "org.apache.kafka.common.security.plain.PlainLoginModule"
            : "org.apache.kafka.common.security.scram.ScramLoginModule";
    return module
        + " required username=\""
        + quoted(username)
        + "\" password=\""
        + quoted(password)
        + "\";";
  }

  private static String quoted(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  private static void put(
      Map<String, Object> props,
      Map<String, String> origin,
      ServiceConfig config,
      String property,
      Setting<String> setting) {
    String value = config.get(setting);
    if (value != null && !value.isEmpty()) {
      props.put(property, value);
      origin.put(property, setting.key());
    }
  }

  @Override
  public String toString() {
    return "KafkaClientProperties" + properties.keySet();
  }
}
