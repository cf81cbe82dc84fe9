package dev.vigil.kit.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PostgresTlsTest {
  @Test
  void tlsParametersOfTheUrlBecomeDebeziumProperties() {
    String url =
        "jdbc:postgresql://db.internal:5432/vigil?ApplicationName=x&sslmode=verify-full"
            + "&sslrootcert=/run/secrets/ca%20file.pem&sslcert=/c.pem&sslkey=/k.pk8";

    assertThat(PostgresTls.debeziumProperties(url))
        .containsExactly(
            Map.entry("database.sslmode", "verify-full"),
            Map.entry("database.sslrootcert", "/run/secrets/ca file.pem"),
            Map.entry("database.sslcert", "/c.pem"),
            Map.entry("database.sslkey", "/k.pk8"));
  }

  @Test
  void aUrlWithoutTlsParametersGivesNone() {
    assertThat(PostgresTls.debeziumProperties("jdbc:postgresql://db/vigil")).isEmpty();
    assertThat(PostgresTls.debeziumProperties("jdbc:postgresql://db/vigil?sslmode")).isEmpty();
  }

  @Test
  void theLastOfARepeatedParameterWinsAsInPgjdbc() {
    assertThat(
            PostgresTls.fromJdbcUrl(
                "jdbc:postgresql://db/vigil?sslmode=disable&SSLMODE=verify-full"))
        .containsEntry("sslmode", "verify-full");
  }
}
