package dev.vigil.notifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vigil.contract.webhook.WebhookSecret;
import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NotifierChannelsConfigTest {
  private static Map<String, String> minimal() {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", "jdbc:postgresql://db/vigil");
    env.put("VIGIL_DB_USER", "notifier");
    env.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", "kafka:9092");
    env.put("VIGIL_WEBHOOK_URL", "https://receiver.example/hook");
    env.put("VIGIL_WEBHOOK_SECRETS", WebhookSecret.generate());
    return env;
  }

  @Test
  void withoutRoutesEveryServiceGoesToTheSignedWebhookOnly() {
    NotifierConfig config = new NotifierConfig(new Settings(minimal()));
    assertThat(config.channels().names()).containsExactly("webhook");
    assertThat(config.channels().channelsFor("payments")).containsExactly("webhook");
  }

  @Test
  void routesFileWithThePagerDutyKeyFromItsSecretFile(@TempDir Path dir) throws Exception {
    Path routes =
        Files.writeString(
            dir.resolve("routes.yaml"),
            """
            channels: {oncall: {type: pagerduty}}
            routes: [{match: pay*, channels: [oncall, webhook]}]
            """);
    Path key = Files.writeString(dir.resolve("pd-key"), "secret-routing-key\n");
    Map<String, String> env = minimal();
    env.put("VIGIL_NOTIFIER_ROUTES_FILE", routes.toString());
    env.put("VIGIL_PAGERDUTY_ROUTING_KEY_FILE", key.toString());
    NotifierConfig config = new NotifierConfig(new Settings(env));
    assertThat(config.channels().channelsFor("payments")).containsExactly("oncall", "webhook");
    assertThat(config.toString()).doesNotContain("secret-routing-key");
  }

  @Test
  void aBadRouteStopsStartWithTheSourceRouteAndField() {
    Map<String, String> env = minimal();
    env.put("VIGIL_NOTIFIER_ROUTES", "routes: [{match: payments, channels: [pd]}]");
    assertThatThrownBy(() -> new NotifierConfig(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "VIGIL_NOTIFIER_ROUTES: route 1 (match 'payments'): field 'channels': unknown channel"
                + " 'pd'");
    env.put("VIGIL_NOTIFIER_ROUTES_FILE", "/nonexistent/routes.yaml");
    assertThatThrownBy(() -> new NotifierConfig(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("not both");
    env.remove("VIGIL_NOTIFIER_ROUTES");
    assertThatThrownBy(() -> new NotifierConfig(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "VIGIL_NOTIFIER_ROUTES_FILE /nonexistent/routes.yaml: cannot be read");
  }

  @Test
  void aPublicUrlThatWouldBreakSlackLinksIsRefused() {
    Map<String, String> env = minimal();
    env.put("VIGIL_NOTIFIER_ROUTES", "channels: {}");
    env.put("VIGIL_NOTIFIER_PUBLIC_URL", "https://vigil.example/x|<!channel>");
    assertThatThrownBy(() -> new NotifierConfig(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_NOTIFIER_PUBLIC_URL");
  }
}
