package dev.vigil.local;

import dev.vigil.harness.EmbeddedKafkaBroker;
import dev.vigil.harness.EmbeddedPostgresServer;
import dev.vigil.harness.tls.TestCertificates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * A platform-like backing for the secure pipeline tests: PostgreSQL with {@code ssl=on}, its own CA
 * and client certificates required ({@code clientcert=verify-full}), and a Kafka broker with a
 * SASL_SSL SCRAM-SHA-512 listener; the services' settings, with every secret in a file.
 */
final class SecureInfra implements AutoCloseable {
  static final String DB_USER = "vigil";
  static final String KAFKA_USER = "vigil-svc";

  /** Distinctive secret values: the secrets test searches everything printed for each. */
  static final String DB_PASSWORD = "dbPw-Zq81-distinct";

  static final String KAFKA_PASSWORD = "kafkaPw-\"Yx\\72;-distinct";
  static final String STORE_PASSWORD = "storePw-Wv63-distinct";
  static final String API_TOKEN = "apiTok-Ut54-distinct";
  static final String ADMIN_TOKEN = "adminTok-Ts45-distinct";
  static final String WEBHOOK_TOKEN = "hookTok-Sr36-distinct";
  static final String WEBHOOK_SECRET_BODY = "ZGlzdGluY3RpdmUtd2ViaG9vay1zZWNyZXQtUnEyNw==";
  static final String WEBHOOK_SECRET = "whsec_" + WEBHOOK_SECRET_BODY;

  final Path dir;
  final TestCertificates certs;
  final TestCertificates otherCa;
  final EmbeddedPostgresServer postgres;
  final EmbeddedKafkaBroker kafka;

  private SecureInfra(
      Path dir,
      TestCertificates certs,
      TestCertificates otherCa,
      EmbeddedPostgresServer postgres,
      EmbeddedKafkaBroker kafka) {
    this.dir = dir;
    this.certs = certs;
    this.otherCa = otherCa;
    this.postgres = postgres;
    this.kafka = kafka;
  }

  static SecureInfra start(Path dir) throws Exception {
    TestCertificates certs = TestCertificates.generate(dir.resolve("ca"), DB_USER, STORE_PASSWORD);
    TestCertificates otherCa =
        TestCertificates.generate(dir.resolve("other-ca"), DB_USER, STORE_PASSWORD);
    EmbeddedPostgresServer postgres =
        EmbeddedPostgresServer.startWithTls(
            dir.resolve("pg"),
            false,
            new EmbeddedPostgresServer.Tls(
                certs.serverCertPem(), certs.serverKeyPem(), certs.caPem()));
    try (Connection c =
            DriverManager.getConnection(
                postgres.jdbcUrl("postgres"), EmbeddedPostgresServer.USER, "");
        Statement s = c.createStatement()) {
      s.execute("create role " + DB_USER + " login superuser password '" + DB_PASSWORD + "'");
    }
    postgres.createDatabase("vigil");
    EmbeddedKafkaBroker kafka =
        EmbeddedKafkaBroker.startWithSaslSsl(
            dir.resolve("kafka"),
            new EmbeddedKafkaBroker.SaslSslListener(certs.serverKeyStore(), STORE_PASSWORD));
    kafka.createScramUser(KAFKA_USER, KAFKA_PASSWORD);
    return new SecureInfra(dir, certs, otherCa, postgres, kafka);
  }

  /** The JDBC URL with {@code sslmode=verify-full}, the CA and the client certificate. */
  String jdbcUrl(TestCertificates ca) {
    return postgres.jdbcUrl("vigil")
        + "?sslmode=verify-full&sslrootcert="
        + ca.caPem()
        + "&sslcert="
        + certs.clientCertPem()
        + "&sslkey="
        + certs.clientKeyDer();
  }

  /** A superuser connection for set-up and checks (trusted, over TLS). */
  Connection superuser() throws SQLException {
    return DriverManager.getConnection(
        postgres.jdbcUrl("vigil") + "?sslmode=require", EmbeddedPostgresServer.USER, "");
  }

  /**
   * The settings every service shares, each secret as a {@code _FILE}: the database over
   * verify-full TLS, Kafka over SASL_SSL with SCRAM-SHA-512 and the test CA's trust store.
   */
  Map<String, String> commonEnv() {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", jdbcUrl(certs));
    env.put("VIGIL_DB_USER", DB_USER);
    env.put("VIGIL_DB_PASSWORD_FILE", secretFile("db-password", DB_PASSWORD));
    env.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", kafka.saslSslBootstrapServers());
    env.put("VIGIL_KAFKA_SECURITY_PROTOCOL", "SASL_SSL");
    env.put("VIGIL_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512");
    env.put("VIGIL_KAFKA_SASL_USERNAME", KAFKA_USER);
    env.put("VIGIL_KAFKA_SASL_PASSWORD_FILE", secretFile("kafka-password", KAFKA_PASSWORD));
    env.put("VIGIL_KAFKA_SSL_TRUSTSTORE_LOCATION", certs.trustStore().toString());
    env.put("VIGIL_KAFKA_SSL_TRUSTSTORE_TYPE", "PKCS12");
    env.put(
        "VIGIL_KAFKA_SSL_TRUSTSTORE_PASSWORD_FILE", secretFile("store-password", STORE_PASSWORD));
    env.put("VIGIL_WEBHOOK_SECRETS_FILE", secretFile("webhook-secrets", WEBHOOK_SECRET));
    env.put("VIGIL_HTTP_PORT", "0");
    return env;
  }

  /** Writes {@code value} (with a trailing newline, as editors do) to a file and gives its path. */
  String secretFile(String name, String value) {
    Path file = dir.resolve("secrets").resolve(name);
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, value + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file.toString();
  }

  @Override
  public void close() {
    try {
      kafka.close();
    } finally {
      postgres.close();
    }
  }
}
