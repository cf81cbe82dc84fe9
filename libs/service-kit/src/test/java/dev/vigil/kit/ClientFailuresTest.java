package dev.vigil.kit;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/**
 * Failures are explained by the setting to check; real clients are exercised in SecurePipelineIT.
 */
class ClientFailuresTest {
  /** Stands in for Kafka's exception of the same simple name (the kit has no Kafka client). */
  static final class SaslAuthenticationException extends RuntimeException {
    SaslAuthenticationException(String message) {
      super(message);
    }
  }

  /** Stands in for pgjdbc's exception of the same simple name. */
  static final class PSQLException extends SQLException {
    PSQLException(String message, String state) {
      super(message, state);
    }
  }

  @Test
  void aRefusedSaslLoginNamesTheCredentialSettings() {
    Exception wrapped =
        new IllegalStateException(
            "cannot create topic", new SaslAuthenticationException("Authentication failed"));

    assertThat(ClientFailures.describe(wrapped))
        .startsWith("Kafka rejected the SASL credentials: check VIGIL_KAFKA_SASL_USERNAME")
        .endsWith("(java.lang.IllegalStateException: cannot create topic)");
  }

  @Test
  void aRefusedDatabasePasswordNamesTheSetting() {
    SQLException refused = new PSQLException("FATAL: no such luck for user \"vigil\"", "28P01");

    assertThat(ClientFailures.hint(new RuntimeException(refused)))
        .isEqualTo("PostgreSQL rejected the password: check VIGIL_DB_USER and VIGIL_DB_PASSWORD");
    assertThat(ClientFailures.hint(new SQLException("other", "28P01"))).isNull();
  }

  @Test
  void aDebeziumRefusalForAMissingClientCertificateNamesSslcert() {
    assertThat(
            ClientFailures.hint(
                new IllegalStateException(
                    "Error while validating connector config: FATAL: connection requires a valid"
                        + " client certificate")))
        .contains("sslcert and sslkey in VIGIL_DB_URL");
  }

  @Test
  void otherFailuresKeepTheirOwnText() {
    Exception other =
        new IllegalStateException("broker unreachable", new SSLHandshakeException("x"));

    assertThat(ClientFailures.hint(other)).isNull();
    assertThat(ClientFailures.describe(other)).isEqualTo(other.toString());
  }
}
