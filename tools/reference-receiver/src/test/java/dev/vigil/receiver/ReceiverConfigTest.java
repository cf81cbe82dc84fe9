package dev.vigil.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vigil.contract.webhook.WebhookSecret;
import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Settings;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReceiverConfigTest {
  private static final String SECRET = WebhookSecret.generate();

  private static Map<String, String> minimal() {
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_DB_URL", "jdbc:postgresql://db/receiver?password=url-pw");
    env.put("VIGIL_DB_USER", "receiver");
    env.put("VIGIL_WEBHOOK_SECRETS", SECRET);
    return env;
  }

  @Test
  void toStringShowsNoSecretTokenOrUrlQuery() {
    Map<String, String> env = minimal();
    env.put("VIGIL_RECEIVER_TOKEN", "receiver-token");

    ReceiverConfig config = new ReceiverConfig(new Settings(env));

    assertThat(config.secrets()).hasSize(1);
    assertThat(config.httpPort()).isEqualTo(8090);
    assertThat(config.toString())
        .contains("VIGIL_RECEIVER_TOKEN=<secret>", "VIGIL_WEBHOOK_SECRETS=<secret>")
        .doesNotContain("url-pw")
        .doesNotContain("receiver-token")
        .doesNotContain(SECRET.substring(6));
  }

  @Test
  void badFaultsAndMissingSecretsStopStartup() {
    Map<String, String> env = minimal();
    env.put("VIGIL_RECEIVER_FAULTS", "explode loudly");
    assertThatThrownBy(() -> new ReceiverConfig(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_RECEIVER_FAULTS='explode loudly' is invalid");

    Map<String, String> noSecrets = minimal();
    noSecrets.remove("VIGIL_WEBHOOK_SECRETS");
    assertThatThrownBy(() -> new ReceiverConfig(new Settings(noSecrets)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_WEBHOOK_SECRETS (or VIGIL_WEBHOOK_SECRETS_FILE) is required");
  }
}
