package dev.vigil.notifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vigil.contract.webhook.WebhookSecret;
import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NotifierConfigTest {
  private static final String SECRET = WebhookSecret.generate();

  private static Map<String, String> minimal() {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", "jdbc:postgresql://db/vigil");
    env.put("VIGIL_DB_USER", "notifier");
    env.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", "kafka:9092");
    env.put("VIGIL_WEBHOOK_URL", "https://hooks.example/vigil");
    env.put("VIGIL_WEBHOOK_SECRETS", SECRET);
    return env;
  }

  @Test
  void defaultsAreSafe() {
    NotifierConfig config = new NotifierConfig(new Settings(minimal()));
    assertThat(config.get(NotifierConfig.MAX_ATTEMPTS)).isEqualTo(5);
    assertThat(config.topic()).isEqualTo("vigil.alerts");
    assertThat(config.get(NotifierConfig.ADMIN_TOKEN)).isNull();
    assertThat(config.toString()).doesNotContain(SECRET.substring(6));
  }

  @Test
  void toStringHidesSecretsTokensAndUrlCredentials() {
    Map<String, String> env = minimal();
    env.put("VIGIL_DB_URL", "jdbc:postgresql://db/vigil?password=db-pw-1");
    env.put("VIGIL_DB_PASSWORD", "db-pw-2");
    env.put("VIGIL_WEBHOOK_URL", "https://user:url-pw@hooks.example/vigil?key=url-key");
    env.put("VIGIL_WEBHOOK_TOKEN", "hook-token");
    env.put("VIGIL_NOTIFIER_ADMIN_TOKEN", "admin-token");
    env.put("VIGIL_WEBHOOK_ROUTES", "pay=https://u:route-pw@pay.example/h?sig=route-key");

    String shown = new NotifierConfig(new Settings(env)).toString();

    assertThat(shown)
        .contains("VIGIL_NOTIFIER_WORKERS=8", "VIGIL_NOTIFIER_ADMIN_TOKEN=<secret>")
        .contains("hooks.example/vigil", "pay.example/h");
    for (String secret :
        new String[] {
          "db-pw-1",
          "db-pw-2",
          "url-pw",
          "url-key",
          "hook-token",
          "admin-token",
          "route-pw",
          "route-key",
          SECRET.substring(6)
        }) {
      assertThat(shown).as("toString shows %s", secret).doesNotContain(secret);
    }
  }

  @Test
  void crossFieldRulesNameBothKeys() {
    Map<String, String> env = minimal();
    env.put("VIGIL_NOTIFIER_LEASE", "5s");
    env.put("VIGIL_NOTIFIER_BACKOFF_INITIAL", "10m");
    assertThatThrownBy(() -> new NotifierConfig(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "VIGIL_NOTIFIER_LEASE must exceed VIGIL_WEBHOOK_CONNECT_TIMEOUT +"
                + " VIGIL_WEBHOOK_READ_TIMEOUT")
        .hasMessageContaining(
            "VIGIL_NOTIFIER_BACKOFF_MAX must be >= VIGIL_NOTIFIER_BACKOFF_INITIAL");
  }

  @Test
  void heartbeatAndRouteMemoryAreRefusedWithTheirKeyWhenOutOfRangeOrNotDurations() {
    assertThat(new NotifierConfig(new Settings(minimal())).get(NotifierConfig.HEARTBEAT))
        .isEqualTo(Duration.ofSeconds(5));
    // heartbeat 100ms to 1m, route memory 0s to 24h
    for (String bad :
        List.of(
            "99ms|25h",
            "2m|-1s",
            "soon|later",
            "5s\u0000|1m\u0000",
            "9".repeat(4000) + "h|" + "9".repeat(4000) + "h")) {
      Map<String, String> env = minimal();
      env.put("VIGIL_NOTIFIER_HEARTBEAT", bad.split("\\|")[0]);
      env.put("VIGIL_NOTIFIER_ROUTE_MEMORY", bad.split("\\|")[1]);
      assertThatThrownBy(() -> new NotifierConfig(new Settings(env)))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("VIGIL_NOTIFIER_HEARTBEAT")
          .hasMessageContaining("VIGIL_NOTIFIER_ROUTE_MEMORY");
    }
  }

  @Test
  void missingSigningSecretsStopStartup() {
    Map<String, String> env = minimal();
    env.put("VIGIL_WEBHOOK_SECRETS", " , ");
    assertThatThrownBy(() -> new NotifierConfig(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_WEBHOOK_SECRETS (or VIGIL_WEBHOOK_SECRETS_FILE) is required");
  }

  @Test
  void plainHttpNeedsExplicitPermission() {
    Map<String, String> env = minimal();
    env.put("VIGIL_WEBHOOK_URL", "http://hooks.example/vigil");
    assertThatThrownBy(() -> new NotifierConfig(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("must use https");
    env.put("VIGIL_WEBHOOK_ALLOW_HTTP", "true");
    assertThat(new NotifierConfig(new Settings(env)).routes().defaultRoute().url().getScheme())
        .isEqualTo("http");
  }

  @Test
  void missingSettingsAreAllReportedWithoutSecrets() {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_WEBHOOK_SECRETS", "not-a-whsec-secret-value");
    env.put("VIGIL_DB_URL", "jdbc:postgresql://db/vigil");
    env.put("VIGIL_WEBHOOK_URL", "https://hooks.example/vigil");
    assertThatThrownBy(() -> new NotifierConfig(new Settings(env)))
        .hasMessageContaining("VIGIL_KAFKA_BOOTSTRAP_SERVERS")
        .hasMessageNotContaining("not-a-whsec-secret-value");
  }

  @Test
  void routesPickExactThenLongestPrefixThenDefaultWithTheirOwnSecrets(@TempDir Path dir)
      throws Exception {
    Path token = dir.resolve("pay-token");
    Files.writeString(token, "s3cr3t-token\n");
    String paySecret = WebhookSecret.generate();
    Map<String, String> env = minimal();
    env.put("PAY_SECRETS", paySecret);
    env.put(
        "VIGIL_WEBHOOK_ROUTES",
        "payments=https://pay.example/hook secrets=env:PAY_SECRETS token=file:"
            + token
            + "; pay*=https://pay-family.example/hook; web-*=https://web.example/hook");
    var routes = new NotifierConfig(new Settings(env)).routes();
    assertThat(routes.routeFor("payments").url().getHost()).isEqualTo("pay.example");
    assertThat(routes.routeFor("payments").bearerToken()).isEqualTo("s3cr3t-token");
    assertThat(routes.routeFor("payments").secrets())
        .containsExactly(WebhookSecret.parse(paySecret));
    assertThat(routes.routeFor("payroll").url().getHost()).isEqualTo("pay-family.example");
    assertThat(routes.routeFor("web-frontend").url().getHost()).isEqualTo("web.example");
    assertThat(routes.routeFor("search").url().getHost()).isEqualTo("hooks.example");
    assertThat(routes.toString()).doesNotContain("s3cr3t-token");
  }

  @Test
  void secretsCanComeFromAFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("secrets");
    String second = WebhookSecret.generate();
    Files.writeString(file, SECRET + "\n" + second + "\n");
    Map<String, String> env = minimal();
    env.remove("VIGIL_WEBHOOK_SECRETS");
    env.put("VIGIL_WEBHOOK_SECRETS_FILE", file.toString());
    assertThat(new NotifierConfig(new Settings(env)).routes().defaultRoute().secrets()).hasSize(2);
  }

  @Test
  void everyTokenAndSecretComesFromAFileAndBothSetIsRefused(@TempDir Path dir) throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "hook-token-from-file\n");
    Path admin = Files.writeString(dir.resolve("admin"), "admin-token-from-file\n");
    Map<String, String> env = minimal();
    env.put("VIGIL_WEBHOOK_TOKEN_FILE", token.toString());
    env.put("VIGIL_NOTIFIER_ADMIN_TOKEN_FILE", admin.toString());

    NotifierConfig config = new NotifierConfig(new Settings(env));
    assertThat(config.routes().defaultRoute().bearerToken()).isEqualTo("hook-token-from-file");
    assertThat(config.get(NotifierConfig.ADMIN_TOKEN)).isEqualTo("admin-token-from-file");
    assertThat(config.toString()).doesNotContain("from-file");

    env.put("VIGIL_WEBHOOK_TOKEN", "hook-token-from-env");
    assertThatThrownBy(() -> new NotifierConfig(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_WEBHOOK_TOKEN and VIGIL_WEBHOOK_TOKEN_FILE are both set")
        .message()
        .doesNotContain("from-env")
        .doesNotContain("from-file");
  }

  @Test
  void theConsumerGetsTheKafkaSecuritySettings() {
    Map<String, String> env = minimal();
    env.put("VIGIL_KAFKA_SECURITY_PROTOCOL", "SASL_SSL");
    env.put("VIGIL_KAFKA_SASL_MECHANISM", "PLAIN");
    env.put("VIGIL_KAFKA_SASL_USERNAME", "api-key");
    env.put("VIGIL_KAFKA_SASL_PASSWORD", "api-secret");
    env.put("VIGIL_KAFKA_PROPERTY_CLIENT_DNS_LOOKUP", "use_all_dns_ips");

    NotifierConfig config = new NotifierConfig(new Settings(env));

    assertThat(config.kafkaClient().asMap())
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "PLAIN")
        .containsEntry("client.dns.lookup", "use_all_dns_ips");
    assertThat(config.toString())
        .doesNotContain("api-secret")
        .contains("VIGIL_KAFKA_PROPERTY_CLIENT_DNS_LOOKUP=<hidden>");
  }
}
