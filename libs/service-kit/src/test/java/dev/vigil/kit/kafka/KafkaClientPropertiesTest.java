package dev.vigil.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vigil.kit.CommonSettings;
import dev.vigil.kit.ConfigDef;
import dev.vigil.kit.ConfigException;
import dev.vigil.kit.ServiceConfig;
import dev.vigil.kit.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientPropertiesTest {
  private static final ConfigDef DEFINITION =
      KafkaSettings.addTo(ConfigDef.of(CommonSettings.KAFKA_BOOTSTRAP_SERVERS));

  private static final class TestConfig extends ServiceConfig {
    TestConfig(Map<String, String> env) {
      super(DEFINITION, new Settings(env));
    }
  }

  private static Map<String, Object> properties(Map<String, String> env) {
    Map<String, String> all = new HashMap<>(env);
    all.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", "kafka:9093");
    return KafkaClientProperties.of(new TestConfig(all)).asMap();
  }

  @Test
  void plaintextByDefault() {
    assertThat(properties(Map.of())).containsExactly(Map.entry("security.protocol", "PLAINTEXT"));
  }

  @Test
  void saslSslWithScramAndATrustStore(@TempDir Path dir) throws Exception {
    Path truststore = Files.writeString(dir.resolve("trust.p12"), "x");
    Path password = Files.writeString(dir.resolve("sasl-password"), "pa\"ss\\word;x=1\n");

    Map<String, Object> props =
        properties(
            Map.of(
                "VIGIL_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                "VIGIL_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512",
                "VIGIL_KAFKA_SASL_USERNAME", "vigil",
                "VIGIL_KAFKA_SASL_PASSWORD_FILE", password.toString(),
                "VIGIL_KAFKA_SSL_TRUSTSTORE_LOCATION", truststore.toString(),
                "VIGIL_KAFKA_SSL_TRUSTSTORE_PASSWORD", "changeit"));

    assertThat(props)
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
        .containsEntry(
            "sasl.jaas.config",
            "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"vigil\" password=\"pa\\\"ss\\\\word;x=1\";")
        .containsEntry("ssl.truststore.location", truststore.toString())
        .containsEntry("ssl.truststore.password", "changeit");
  }

  @Test
  void mutualTlsWithAKeyStore(@TempDir Path dir) throws Exception {
    Path keystore = Files.writeString(dir.resolve("client.p12"), "x");

    Map<String, Object> props =
        properties(
            Map.of(
                "VIGIL_KAFKA_SECURITY_PROTOCOL", "SSL",
                "VIGIL_KAFKA_SSL_KEYSTORE_LOCATION", keystore.toString(),
                "VIGIL_KAFKA_SSL_KEYSTORE_TYPE", "PKCS12",
                "VIGIL_KAFKA_SSL_KEYSTORE_PASSWORD", "ks"));

    assertThat(props)
        .containsEntry("security.protocol", "SSL")
        .containsEntry("ssl.keystore.location", keystore.toString())
        .containsEntry("ssl.keystore.type", "PKCS12")
        .containsEntry("ssl.keystore.password", "ks")
        .doesNotContainKey("sasl.jaas.config");
  }

  @Test
  void passThroughPropertiesAreAddedByName() {
    Map<String, Object> props =
        properties(
            Map.of(
                "VIGIL_KAFKA_PROPERTY_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM", "",
                "VIGIL_KAFKA_PROPERTY_REQUEST_TIMEOUT_MS", "20000",
                "VIGIL_KAFKA_PROPERTY_CLIENT_DNS_LOOKUP", "use_all_dns_ips"));

    assertThat(props)
        .containsEntry("request.timeout.ms", "20000")
        .containsEntry("client.dns.lookup", "use_all_dns_ips")
        .doesNotContainKey("ssl.endpoint.identification.algorithm");
    assertThat(
            KafkaClientProperties.of(
                    new TestConfig(
                        Map.of(
                            "VIGIL_KAFKA_BOOTSTRAP_SERVERS", "k:1",
                            "VIGIL_KAFKA_PROPERTY_SASL_JAAS_CONFIG", "secret-jaas")))
                .toString())
        .doesNotContain("secret-jaas");
  }

  @Test
  void aMechanismViaPassThroughNeedsItsJaasConfigThere() {
    Map<String, Object> props =
        properties(
            Map.of(
                "VIGIL_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                "VIGIL_KAFKA_PROPERTY_SASL_MECHANISM", "OAUTHBEARER",
                "VIGIL_KAFKA_PROPERTY_SASL_JAAS_CONFIG", "x required;"));

    assertThat(props).containsEntry("sasl.mechanism", "OAUTHBEARER");
  }

  @Test
  void passThroughCannotChangeWhatTheServiceOwnsOrWhatASettingSets() {
    assertThatThrownBy(() -> properties(Map.of("VIGIL_KAFKA_PROPERTY_ACKS", "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_KAFKA_PROPERTY_ACKS sets acks, which the service sets itself");
    assertThatThrownBy(
            () ->
                properties(
                    Map.of(
                        "VIGIL_KAFKA_PROPERTY_SECURITY_PROTOCOL", "SSL",
                        "VIGIL_KAFKA_PROPERTY_ENABLE_IDEMPOTENCE", "false",
                        "VIGIL_KAFKA_PROPERTY_bad__name", "x")))
        .hasMessageContaining(
            "VIGIL_KAFKA_PROPERTY_SECURITY_PROTOCOL sets security.protocol, already set by"
                + " VIGIL_KAFKA_SECURITY_PROTOCOL")
        .hasMessageContaining("VIGIL_KAFKA_PROPERTY_ENABLE_IDEMPOTENCE sets enable.idempotence")
        .hasMessageContaining("VIGIL_KAFKA_PROPERTY_bad__name is not a property name");
  }

  @Test
  void badCombinationsStopStartNamingTheSettings(@TempDir Path dir) throws Exception {
    Path store = Files.writeString(dir.resolve("store.p12"), "x");
    Map<Map<String, String>, String> cases =
        Map.of(
            Map.of("VIGIL_KAFKA_SECURITY_PROTOCOL", "SASL_SSL"),
            "VIGIL_KAFKA_SECURITY_PROTOCOL is SASL_SSL or SASL_PLAINTEXT, so"
                + " VIGIL_KAFKA_SASL_MECHANISM",
            Map.of("VIGIL_KAFKA_SASL_MECHANISM", "PLAIN", "VIGIL_KAFKA_SASL_USERNAME", "u"),
            "VIGIL_KAFKA_SASL_MECHANISM, VIGIL_KAFKA_SASL_USERNAME and VIGIL_KAFKA_SASL_PASSWORD go"
                + " together",
            Map.of(
                "VIGIL_KAFKA_SASL_MECHANISM", "PLAIN",
                "VIGIL_KAFKA_SASL_USERNAME", "u",
                "VIGIL_KAFKA_SASL_PASSWORD", "p"),
            "VIGIL_KAFKA_SASL_MECHANISM is set, so VIGIL_KAFKA_SECURITY_PROTOCOL must be",
            Map.of("VIGIL_KAFKA_SSL_TRUSTSTORE_LOCATION", store.toString()),
            "need VIGIL_KAFKA_SECURITY_PROTOCOL SSL or SASL_SSL",
            Map.of(
                "VIGIL_KAFKA_SECURITY_PROTOCOL",
                "SSL",
                "VIGIL_KAFKA_SSL_KEYSTORE_LOCATION",
                store.toString()),
            "VIGIL_KAFKA_SSL_KEYSTORE_LOCATION (PKCS12 or JKS) needs"
                + " VIGIL_KAFKA_SSL_KEYSTORE_PASSWORD",
            Map.of(
                "VIGIL_KAFKA_SECURITY_PROTOCOL",
                "SSL",
                "VIGIL_KAFKA_SSL_TRUSTSTORE_LOCATION",
                dir.resolve("missing.p12").toString()),
            "VIGIL_KAFKA_SSL_TRUSTSTORE_LOCATION='" + dir.resolve("missing.p12") + "' is invalid",
            Map.of(
                "VIGIL_KAFKA_SECURITY_PROTOCOL",
                "SASL_SSL",
                "VIGIL_KAFKA_SASL_MECHANISM",
                "SCRAM-SHA-512",
                "VIGIL_KAFKA_SASL_USERNAME",
                "u",
                "VIGIL_KAFKA_SASL_PASSWORD",
                "line\nbreak-Secret"),
            "VIGIL_KAFKA_SASL_PASSWORD=<secret> is invalid: must be printable text");
    cases.forEach(
        (env, message) ->
            assertThatThrownBy(() -> properties(env))
                .as("%s", env.keySet())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(message)
                .message()
                .doesNotContain("break-Secret"));
  }
}
