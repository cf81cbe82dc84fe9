package dev.vigil.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.kit.Setting;
import dev.vigil.monitor.MonitorConfig;
import dev.vigil.notifier.NotifierConfig;
import dev.vigil.receiver.ReceiverConfig;
import dev.vigil.relay.config.RelayConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * docker-compose.yaml configures the services only through environment variables: every variable it
 * sets must be a setting the service really reads, and every required setting must be set.
 */
class ComposeFileTest {
  private static final Path REPO_ROOT = Path.of("../..");

  /**
   * Which settings each of our compose services reads; postgres and kafka are third-party images.
   */
  private static final Map<String, List<Setting<?>>> SERVICES =
      Map.of(
          "monitor", MonitorConfig.DEFINITION.settings(),
          "relay-a", RelayConfig.DEFINITION.settings(),
          "relay-b", RelayConfig.DEFINITION.settings(),
          "notifier", NotifierConfig.DEFINITION.settings(),
          "receiver", ReceiverConfig.DEFINITION.settings(),
          "demo-targets", List.of(DemoTargetsMain.PORT));

  @Test
  void everyVariableIsASettingTheServiceReads() throws IOException {
    Map<String, Map<String, Object>> services = composeServices();
    assertThat(services.keySet()).containsAll(SERVICES.keySet());

    SERVICES.forEach(
        (service, settings) -> {
          Set<String> known = settings.stream().map(Setting::key).collect(Collectors.toSet());
          // every secret KEY also takes KEY_FILE (a compose or Kubernetes secret)
          settings.stream()
              .filter(Setting::secret)
              .forEach(setting -> known.add(setting.fileKey()));
          assertThat(environment(services, service).keySet())
              .as("variables of compose service %s that it does not read", service)
              .isSubsetOf(known);
        });
  }

  @Test
  void everyRequiredSettingIsSet() throws IOException {
    Map<String, Map<String, Object>> services = composeServices();

    SERVICES.forEach(
        (service, settings) -> {
          Set<String> required = new TreeSet<>();
          settings.stream().filter(Setting::required).forEach(s -> required.add(s.key()));
          assertThat(environment(services, service).keySet())
              .as("required settings of compose service %s", service)
              .containsAll(required);
        });
  }

  @Test
  void twoRelaysRunAsActiveAndStandbyWithDistinctInstanceIds() throws IOException {
    Map<String, Map<String, Object>> services = composeServices();

    assertThat(environment(services, "relay-a").get("VIGIL_INSTANCE_ID"))
        .isNotEqualTo(environment(services, "relay-b").get("VIGIL_INSTANCE_ID"));
    assertThat(environment(services, "relay-a").get("VIGIL_DB_URL"))
        .isEqualTo(environment(services, "relay-b").get("VIGIL_DB_URL"));
  }

  @SuppressWarnings("unchecked")
  /**
   * The compose file's services, as docker-compose reads them; also used by ImageBuildContextTest.
   */
  static Map<String, Map<String, Object>> composeServices() throws IOException {
    // SnakeYAML resolves the anchors and "<<" merge keys the compose file uses, as docker-compose
    // does.
    Map<String, Object> compose =
        new Yaml().load(Files.readString(REPO_ROOT.resolve("docker-compose.yaml")));
    return (Map<String, Map<String, Object>>) compose.get("services");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> environment(
      Map<String, Map<String, Object>> services, String service) {
    Object environment = services.get(service).get("environment");
    assertThat(environment).as("environment of %s is a map", service).isInstanceOf(Map.class);
    return (Map<String, Object>) environment;
  }
}
