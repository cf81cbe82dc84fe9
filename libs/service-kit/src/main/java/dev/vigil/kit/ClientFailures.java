package dev.vigil.kit;

import java.util.Locale;

/**
 * Explains why a connection to Kafka or PostgreSQL was refused in words an operator can act on,
 * naming the setting to check: a wrong password or an unknown CA otherwise surfaces as a deep
 * exception chain. Works on class names and SQL states only, so the kit needs no Kafka client.
 */
public final class ClientFailures {
  private ClientFailures() {}

  /**
   * The failure's own text, prefixed with what to check when it is an authentication or TLS failure
   * of Kafka or PostgreSQL. Never contains a credential: exception messages of these clients name
   * users and hosts, not passwords.
   */
  public static String describe(Throwable failure) {
    String hint = hint(failure);
    String text = failure.toString();
    return hint == null ? text : hint + " (" + text + ")";
  }

  /** What to check, or null when {@code failure} is not an authentication or TLS failure. */
  public static String hint(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 20; t = t.getCause(), depth++) {
      String type = t.getClass().getSimpleName();
      String message = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
      switch (type) {
        case "SaslAuthenticationException" -> {
          return "Kafka rejected the SASL credentials: check VIGIL_KAFKA_SASL_USERNAME,"
              + " VIGIL_KAFKA_SASL_PASSWORD and VIGIL_KAFKA_SASL_MECHANISM";
        }
        case "SslAuthenticationException" -> {
          return "TLS handshake with Kafka failed: check VIGIL_KAFKA_SSL_TRUSTSTORE_LOCATION (the"
              + " CA of the brokers' certificates), the key store for mutual TLS and"
              + " VIGIL_KAFKA_SECURITY_PROTOCOL";
        }
        case "PSQLException" -> {
          String hint = postgresHint(t, message);
          if (hint != null) {
            return hint;
          }
        }
        default -> {
          if (message.contains("requires a valid client certificate")) {
            // Debezium reports PostgreSQL's refusal in its own exception, without the cause
            return "PostgreSQL requires a client certificate: check sslcert and sslkey in"
                + " VIGIL_DB_URL";
          }
          if (message.contains("keystore was tampered with")
              || message.contains("password was incorrect")
              || type.equals("UnrecoverableKeyException")) {
            return "a key store or trust store could not be opened: check"
                + " VIGIL_KAFKA_SSL_TRUSTSTORE_PASSWORD, VIGIL_KAFKA_SSL_KEYSTORE_PASSWORD and"
                + " VIGIL_KAFKA_SSL_KEY_PASSWORD";
          }
        }
      }
    }
    return null;
  }

  private static String postgresHint(Throwable t, String message) {
    String state = t instanceof java.sql.SQLException sql ? sql.getSQLState() : null;
    if ("28P01".equals(state) || message.contains("password authentication failed")) {
      return "PostgreSQL rejected the password: check VIGIL_DB_USER and VIGIL_DB_PASSWORD";
    }
    if ("28000".equals(state) && message.contains("no encryption")) {
      return "PostgreSQL requires TLS for this connection: set sslmode=verify-full (and"
          + " sslrootcert) in VIGIL_DB_URL";
    }
    if (message.contains("ssl") || hasTlsCause(t)) {
      return "TLS with PostgreSQL failed: check sslmode and sslrootcert (the CA of the server's"
          + " certificate), sslcert and sslkey in VIGIL_DB_URL";
    }
    return null;
  }

  private static boolean hasTlsCause(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 20; t = t.getCause(), depth++) {
      if (t instanceof javax.net.ssl.SSLException
          || t instanceof java.security.cert.CertificateException
          || t instanceof java.security.GeneralSecurityException) {
        return true;
      }
    }
    return false;
  }
}
