package dev.vigil.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.vigil.kit.ClientFailures;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.MonitorConfig;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.MonitorService;
import dev.vigil.notifier.NotifierConfig;
import dev.vigil.notifier.NotifierService;
import dev.vigil.receiver.ReceiverConfig;
import dev.vigil.receiver.ReferenceReceiver;
import dev.vigil.relay.RelayService;
import dev.vigil.relay.config.RelayConfig;
import dev.vigil.relay.ops.RelayStatus;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The pipeline on a platform-like backing: PostgreSQL with {@code sslmode=verify-full} and client
 * certificates required, Kafka over SASL_SSL with SCRAM-SHA-512, every secret from a file. A wrong
 * password or CA fails with a message naming the setting; no secret value ever appears in what the
 * services print, log, answer on /health or dump as configuration.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecurePipelineIT {
  private static final Duration LONG = Duration.ofSeconds(120);
  private static final String WRONG_PASSWORD = "wrongPw-Qp18-distinct";
  private static final List<String> SECRETS =
      List.of(
          SecureInfra.DB_PASSWORD,
          SecureInfra.KAFKA_PASSWORD,
          SecureInfra.STORE_PASSWORD,
          SecureInfra.API_TOKEN,
          SecureInfra.ADMIN_TOKEN,
          SecureInfra.WEBHOOK_TOKEN,
          SecureInfra.WEBHOOK_SECRET_BODY,
          WRONG_PASSWORD);

  @TempDir static Path dir;
  private SecureInfra infra;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  void startInfrastructure() throws Exception {
    infra = SecureInfra.start(dir);
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(infra.jdbcUrl(infra.certs));
    dataSource.setUser(SecureInfra.DB_USER);
    dataSource.setPassword(SecureInfra.DB_PASSWORD);
    MonitorSchema.migrate(dataSource);
  }

  @AfterAll
  void stopInfrastructure() {
    if (infra != null) {
      infra.close();
    }
  }

  /**
   * pg_hba requires a client certificate from every user but the superuser, so the relay streams
   * only if Debezium's replication and JDBC connections got sslmode, sslrootcert, sslcert and
   * sslkey from the JDBC URL.
   */
  @Test
  void alertsFlowOverSaslSslAndVerifyFullTlsAndNoSecretIsEverShown() throws Exception {
    TestTarget target = TestTarget.start();
    Path targets = target.writeTargetsFile(dir.resolve("targets.yaml"), "payments", 2);
    List<String> delivered = new CopyOnWriteArrayList<>();

    try (Capture capture = new Capture()) {
      Map<String, String> common = infra.commonEnv();
      Map<String, String> receiverEnv = new HashMap<>(common);
      receiverEnv.put(
          "VIGIL_RECEIVER_TOKEN_FILE",
          infra.secretFile("webhook-token", SecureInfra.WEBHOOK_TOKEN));
      Map<String, String> relayEnv = new HashMap<>(common);
      relayEnv.put("VIGIL_RELAY_SLOT", "vigil_secure");
      relayEnv.put("VIGIL_RELAY_PUBLICATION", "vigil_secure");
      relayEnv.put("VIGIL_RELAY_MAX_RETRY_BACKOFF", "1s");
      Map<String, String> monitorEnv = new HashMap<>(common);
      monitorEnv.put(
          "VIGIL_MONITOR_API_TOKEN_FILE", infra.secretFile("api-token", SecureInfra.API_TOKEN));
      monitorEnv.put("VIGIL_MONITOR_TARGETS_FILE", targets.toString());

      ReceiverConfig receiverConfig = new ReceiverConfig(new Settings(receiverEnv));
      RelayConfig relayConfig = new RelayConfig(new Settings(relayEnv));
      MonitorConfig monitorConfig = new MonitorConfig(new Settings(monitorEnv));
      capture.add("receiver config", receiverConfig.toString());
      capture.add("relay config", relayConfig.toString());
      capture.add("monitor config", monitorConfig.toString());

      try (ReferenceReceiver receiver = ReferenceReceiver.start(receiverConfig)) {
        receiver.onNotification(n -> delivered.add(n.event().service() + " " + n.event().kind()));
        // the first two attempts fail: the notifier logs failed deliveries and retries
        receiver.faults().failWith(503, 2, null);
        Map<String, String> notifierEnv = new HashMap<>(common);
        notifierEnv.put("VIGIL_WEBHOOK_URL", "http://127.0.0.1:" + receiver.port() + "/webhook");
        notifierEnv.put("VIGIL_WEBHOOK_ALLOW_HTTP", "true");
        notifierEnv.put("VIGIL_NOTIFIER_GROUP_ID", "vigil-secure");
        notifierEnv.put("VIGIL_NOTIFIER_BACKOFF_INITIAL", "100ms");
        notifierEnv.put("VIGIL_NOTIFIER_BACKOFF_MAX", "1s");
        notifierEnv.put(
            "VIGIL_WEBHOOK_TOKEN_FILE",
            infra.secretFile("webhook-token", SecureInfra.WEBHOOK_TOKEN));
        notifierEnv.put(
            "VIGIL_NOTIFIER_ADMIN_TOKEN_FILE",
            infra.secretFile("admin-token", SecureInfra.ADMIN_TOKEN));
        NotifierConfig notifierConfig = new NotifierConfig(new Settings(notifierEnv));
        capture.add("notifier config", notifierConfig.toString());

        try (NotifierService notifier = NotifierService.start(notifierConfig);
            RelayService relay = RelayService.start(relayConfig)) {
          await().atMost(LONG).until(() -> relay.status().state() == RelayStatus.State.STREAMING);
          try (MonitorService monitor = MonitorService.start(monitorConfig)) {
            target.up(false);
            await().atMost(LONG).until(() -> delivered.contains("payments FAILED"));
            // a failure of the relay: its replication connection is cut; it restarts by itself
            terminateWalSenders();
            await().atMost(LONG).until(() -> relay.status().state() == RelayStatus.State.STREAMING);
            target.up(true);
            await().atMost(LONG).until(() -> delivered.contains("payments RECOVERED"));

            capture.add("monitor /health", get(monitor.httpPort(), "/health"));
            capture.add("relay /health", get(relay.httpPort(), "/health"));
            capture.add("notifier /health", get(notifier.httpPort(), "/health"));
            capture.add("receiver /health", get(receiver.port(), "/health"));
            capture.add("relay /metrics", get(relay.httpPort(), "/metrics"));
          }
        }
      }
      assertThat(delivered).containsExactly("payments FAILED", "payments RECOVERED");
      assertThat(receiverConfig.secrets()).hasSize(1);

      String printed = capture.text();
      // the capture really holds what the services said (else "no secret" would prove nothing)
      assertThat(printed)
          .contains("relay started", "notifier started", "VIGIL_DB_PASSWORD=<secret>")
          .contains("\"status\"");
      assertNoSecretIn(printed);
    } finally {
      target.close();
    }
  }

  @Test
  void aWrongKafkaPasswordFailsNamingTheSettingWithoutShowingIt() throws Exception {
    Map<String, String> env = relayEnv("vigil_wrong_kafka_pw");
    env.put("VIGIL_KAFKA_SASL_PASSWORD_FILE", infra.secretFile("wrong-kafka", WRONG_PASSWORD));

    String reason = failingRelayReason(env);

    assertThat(reason).contains("VIGIL_KAFKA_SASL_PASSWORD");
  }

  @Test
  void aWrongKafkaCaFailsNamingTheTrustStore() throws Exception {
    Map<String, String> env = relayEnv("vigil_wrong_kafka_ca");
    env.put("VIGIL_KAFKA_SSL_TRUSTSTORE_LOCATION", infra.otherCa.trustStore().toString());

    String reason = failingRelayReason(env);

    assertThat(reason).contains("VIGIL_KAFKA_SSL_TRUSTSTORE_LOCATION");
  }

  @Test
  void aWrongDatabasePasswordFailsNamingTheSetting() throws Exception {
    Map<String, String> env = relayEnv("vigil_wrong_db_pw");
    env.put("VIGIL_DB_PASSWORD_FILE", infra.secretFile("wrong-db", WRONG_PASSWORD));

    assertThat(failingRelayReason(env)).contains("VIGIL_DB_PASSWORD");

    Map<String, String> notifierEnv = new HashMap<>(env);
    notifierEnv.put("VIGIL_WEBHOOK_URL", "http://127.0.0.1:9/webhook");
    notifierEnv.put("VIGIL_WEBHOOK_ALLOW_HTTP", "true");
    try (Capture capture = new Capture()) {
      assertThatThrownBy(() -> NotifierService.start(new NotifierConfig(new Settings(notifierEnv))))
          .satisfies(
              e -> {
                capture.add("start failure", ClientFailures.describe(e) + "\n" + stackTrace(e));
                assertThat(ClientFailures.describe(e)).contains("VIGIL_DB_PASSWORD");
              });
      assertNoSecretIn(capture.text());
    }
  }

  @Test
  void aWrongDatabaseCaFailsNamingSslrootcert() throws Exception {
    Map<String, String> env = relayEnv("vigil_wrong_db_ca");
    env.put("VIGIL_DB_URL", infra.jdbcUrl(infra.otherCa));

    assertThat(failingRelayReason(env)).contains("sslrootcert");
  }

  /** The relay's settings with its own slot and publication, so the cases do not interfere. */
  private Map<String, String> relayEnv(String slot) {
    Map<String, String> env = infra.commonEnv();
    env.put("VIGIL_RELAY_SLOT", slot);
    env.put("VIGIL_RELAY_PUBLICATION", slot);
    env.put("VIGIL_RELAY_MAX_RETRY_BACKOFF", "1s");
    return env;
  }

  /** Starts a relay that cannot work, captures its reason and what it printed, then stops it. */
  private String failingRelayReason(Map<String, String> env) throws Exception {
    try (Capture capture = new Capture()) {
      String reason;
      RelayConfig config = new RelayConfig(new Settings(env));
      try (RelayService relay = RelayService.start(config)) {
        await()
            .atMost(LONG)
            .until(
                () ->
                    relay.status().state() == RelayStatus.State.FAILING
                        && relay.status().reason() != null);
        reason = relay.status().reason();
        capture.add("relay /health", get(relay.httpPort(), "/health"));
        capture.add("relay config", config.toString());
      }

      assertNoSecretIn(capture.text());
      return reason;
    }
  }

  private void terminateWalSenders() throws Exception {
    try (var connection = infra.superuser();
        Statement statement = connection.createStatement()) {
      statement.execute(
          "select pg_terminate_backend(pid) from pg_stat_activity"
              + " where backend_type = 'walsender'");
    }
  }

  private String get(int port, String path) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static String stackTrace(Throwable e) {
    StringWriter text = new StringWriter();
    e.printStackTrace(new PrintWriter(text));
    return text.toString();
  }

  private static void assertNoSecretIn(String printed) {
    for (String secret : SECRETS) {
      assertThat(printed).as("what the services showed").doesNotContain(secret);
    }
    // the Kafka password's distinctive core, in case it is shown escaped
    assertThat(printed).doesNotContain("Yx\\72").doesNotContain("Yx\\\\72");
  }
}
