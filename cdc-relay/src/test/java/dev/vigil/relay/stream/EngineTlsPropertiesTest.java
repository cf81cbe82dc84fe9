package dev.vigil.relay.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Settings;
import dev.vigil.relay.config.RelayConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The JDBC URL's TLS reaches Debezium, which builds its connections from host, port and name. */
class EngineTlsPropertiesTest {
  private static RelayConfig config(String url) {
    return config(url, Map.of());
  }

  private static RelayConfig config(String url, Map<String, String> more) {
    Map<String, String> env = new HashMap<>(more);
    env.put("VIGIL_DB_URL", url);
    env.put("VIGIL_DB_USER", "relay");
    env.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", "kafka:9093");
    return new RelayConfig(new Settings(env));
  }

  @Test
  void sslParametersOfTheUrlReachDebeziumsConnections() {
    Properties props =
        EngineProperties.of(
            config(
                "jdbc:postgresql://pg.internal:6432/vigil?sslmode=verify-full"
                    + "&sslrootcert=/run/secrets/pg-ca.pem&sslcert=/run/secrets/relay.crt"
                    + "&sslkey=/run/secrets/relay.pk8"));

    assertThat(props)
        .containsEntry("database.hostname", "pg.internal")
        .containsEntry("database.port", "6432")
        .containsEntry("database.sslmode", "verify-full")
        .containsEntry("database.sslrootcert", "/run/secrets/pg-ca.pem")
        .containsEntry("database.sslcert", "/run/secrets/relay.crt")
        .containsEntry("database.sslkey", "/run/secrets/relay.pk8");
  }

  @Test
  void theClientKeysPasswordComesFromItsOwnSettingNeverFromTheUrl() {
    RelayConfig config =
        config(
            "jdbc:postgresql://pg/vigil?sslmode=verify-full&sslkey=/k.pk8",
            Map.of("VIGIL_DB_SSLPASSWORD", "key-pw", "VIGIL_RELAY_DELIVERY", "at-least-once"));

    Properties props = EngineProperties.of(config);

    assertThat(props)
        .containsEntry("database.sslpassword", "key-pw")
        .containsEntry(PostgresOffsetStore.SSL_PASSWORD, "key-pw")
        .containsEntry(
            PostgresOffsetStore.URL,
            "jdbc:postgresql://pg/vigil?sslmode=verify-full&sslkey=/k.pk8");
    assertThat(config.connectionProperties())
        .containsEntry("user", "relay")
        .containsEntry("sslpassword", "key-pw");
  }

  @Test
  void aUrlCarryingAPasswordOrTheKeysPasswordStopsStartNamingTheUrlWithoutTheValue() {
    for (String parameter : new String[] {"password", "sslpassword", "SSLPassword"}) {
      assertThatThrownBy(
              () -> config("jdbc:postgresql://pg/vigil?sslmode=require&" + parameter + "=pw-9"))
          .as(parameter)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("VIGIL_DB_URL")
          .hasMessageContaining("VIGIL_DB_SSLPASSWORD")
          .hasMessageNotContaining("pw-9");
    }
  }

  @Test
  void withoutTlsParametersDebeziumKeepsItsDefault() {
    assertThat(EngineProperties.of(config("jdbc:postgresql://pg/vigil")).stringPropertyNames())
        .noneMatch(name -> name.startsWith("database.ssl"));
  }

  @Test
  void anUnknownSslmodeStopsStartNamingTheUrl() {
    assertThatThrownBy(() -> config("jdbc:postgresql://pg/vigil?sslmode=verify-everything"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_DB_URL")
        .hasMessageContaining("sslmode must be one of");
  }
}
