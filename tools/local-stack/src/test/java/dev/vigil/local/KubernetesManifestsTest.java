package dev.vigil.local;

import static dev.vigil.local.Kustomize.find;
import static dev.vigil.local.Kustomize.list;
import static dev.vigil.local.Kustomize.map;
import static dev.vigil.local.Kustomize.name;
import static dev.vigil.local.Kustomize.ofKind;
import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.kit.Setting;
import dev.vigil.monitor.MonitorConfig;
import dev.vigil.notifier.NotifierConfig;
import dev.vigil.receiver.ReceiverConfig;
import dev.vigil.relay.config.RelayConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/kubernetes as {@code kubectl kustomize} renders it: every environment variable is a
 * setting the service reads and every required one is set (as {@link ComposeFileTest} checks for
 * compose), secrets arrive as files, the probes, the relay's replicas, PodDisruptionBudget and
 * grace period, and the generated PrometheusRule and KafkaConnector are what their sources say.
 */
class KubernetesManifestsTest {
  /** Which settings each Deployment's container reads. */
  private static final Map<String, List<Setting<?>>> DEPLOYMENTS =
      Map.of(
          "vigil-monitor", MonitorConfig.DEFINITION.settings(),
          "vigil-relay", RelayConfig.DEFINITION.settings(),
          "vigil-notifier", NotifierConfig.DEFINITION.settings(),
          "vigil-receiver", ReceiverConfig.DEFINITION.settings());

  /**
   * The longest a relay's graceful stop can take (OutboxStream.close): 20 s for the batch in
   * flight, 20 s more after aborting its sends, 5 s to close the producer.
   */
  private static final int RELAY_WORST_STOP_SECONDS = 20 + 20 + 5;

  private static List<Map<String, Object>> base;
  private static List<Map<String, Object>> connect;

  @BeforeAll
  static void render() throws IOException {
    if (Boolean.getBoolean("vigil.k8s.write")) {
      KubernetesGenerated.write();
    }
    base = Kustomize.render(Kustomize.BASE);
    connect = Kustomize.render(Kustomize.CONNECT);
  }

  @Test
  void everyVariableIsASettingTheServiceReads() {
    assertThat(ofKind(base, "Deployment").stream().map(Kustomize::name))
        .containsExactlyInAnyOrderElementsOf(DEPLOYMENTS.keySet());
    DEPLOYMENTS.forEach(
        (deployment, settings) -> {
          Set<String> known = settings.stream().map(Setting::key).collect(Collectors.toSet());
          settings.stream().filter(Setting::secret).forEach(s -> known.add(s.fileKey()));
          assertThat(env(deployment).keySet())
              .as("variables of Deployment %s that it does not read", deployment)
              .isSubsetOf(known);
        });
  }

  @Test
  void everyRequiredSettingIsSet() {
    DEPLOYMENTS.forEach(
        (deployment, settings) -> {
          Set<String> names = env(deployment).keySet();
          Set<String> missing = new TreeSet<>();
          settings.stream()
              .filter(Setting::required)
              .filter(s -> !names.contains(s.key()))
              .filter(s -> !(s.secret() && names.contains(s.fileKey())))
              .forEach(s -> missing.add(s.key()));
          assertThat(missing)
              .as("required settings of Deployment %s not set", deployment)
              .isEmpty();
        });
  }

  @Test
  void secretsAreFilesOfAMountedSecretAndNeverLiteralValues() {
    DEPLOYMENTS.forEach(
        (deployment, settings) -> {
          Map<String, Object> spec = podSpec(deployment);
          Map<String, Object> container = list(spec, "containers").getFirst();
          Map<String, Map<String, Object>> env = env(deployment);
          for (Setting<?> setting : settings) {
            if (!setting.secret()) {
              continue;
            }
            assertThat(env)
                .as(
                    "%s sets the secret %s itself; use %s",
                    deployment, setting.key(), setting.fileKey())
                .doesNotContainKey(setting.key());
            Map<String, Object> file = env.get(setting.fileKey());
            if (file != null) {
              assertThat(secretFiles(spec, container))
                  .as(
                      "%s=%s in %s is a file of a mounted Secret",
                      setting.fileKey(), file, deployment)
                  .contains((String) file.get("value"));
            }
          }
        });
  }

  @Test
  void configMapReferencesNameRenderedKeys() {
    DEPLOYMENTS
        .keySet()
        .forEach(
            deployment ->
                env(deployment)
                    .forEach(
                        (variable, entry) -> {
                          Object from = entry.get("valueFrom");
                          assertThat(entry.containsKey("value") != (from != null))
                              .as(
                                  "%s of %s has exactly one of value and valueFrom",
                                  variable, deployment)
                              .isTrue();
                          if (from != null && ((Map<?, ?>) from).containsKey("configMapKeyRef")) {
                            @SuppressWarnings("unchecked")
                            Map<String, Object> ref =
                                (Map<String, Object>) ((Map<?, ?>) from).get("configMapKeyRef");
                            Map<String, Object> data =
                                map(find(base, "ConfigMap", (String) ref.get("name")), "data");
                            assertThat(data)
                                .as("ConfigMap key of %s in %s", variable, deployment)
                                .containsKey((String) ref.get("key"));
                          }
                        }));
  }

  @Test
  void probesUseTheServicesHealthRoutes() {
    for (String deployment : List.of("vigil-monitor", "vigil-relay", "vigil-notifier")) {
      Map<String, Object> container = list(podSpec(deployment), "containers").getFirst();
      assertThat(httpPath(container, "livenessProbe")).as(deployment).isEqualTo("/health/live");
      assertThat(httpPath(container, "readinessProbe")).as(deployment).isEqualTo("/health");
    }
    // The reference receiver answers GET /health only (no /health/live): TCP liveness.
    Map<String, Object> receiver = list(podSpec("vigil-receiver"), "containers").getFirst();
    assertThat(map(receiver, "livenessProbe")).containsKey("tcpSocket");
    assertThat(httpPath(receiver, "readinessProbe")).isEqualTo("/health");
  }

  @Test
  void twoRelaysWithADisruptionBudgetAndAGracePeriodLongerThanABatchCommit() {
    Map<String, Object> relay = find(base, "Deployment", "vigil-relay");
    assertThat(map(relay, "spec").get("replicas")).isEqualTo(2);
    Map<String, Object> pdb = find(base, "PodDisruptionBudget", "vigil-relay");
    assertThat(map(pdb, "spec").get("minAvailable")).isEqualTo(1);
    Map<String, Object> podLabels =
        map(map(map(map(relay, "spec"), "template"), "metadata"), "labels");
    assertThat(podLabels)
        .as("the PodDisruptionBudget selects the relay's pods")
        .containsAllEntriesOf(map(map(map(pdb, "spec"), "selector"), "matchLabels"));
    assertThat((Integer) podSpec("vigil-relay").get("terminationGracePeriodSeconds"))
        .isGreaterThan(RELAY_WORST_STOP_SECONDS);
  }

  @Test
  void everyResourceHasRequestsAndLimits() {
    DEPLOYMENTS
        .keySet()
        .forEach(
            deployment -> {
              Map<String, Object> resources =
                  map(list(podSpec(deployment), "containers").getFirst(), "resources");
              assertThat(map(resources, "requests")).as(deployment).containsKeys("cpu", "memory");
              assertThat(map(resources, "limits")).as(deployment).containsKeys("cpu", "memory");
            });
  }

  @Test
  void prometheusRuleIsGeneratedFromTheObservabilityRules() throws IOException {
    assertThat(Files.readString(KubernetesGenerated.PROMETHEUS_RULE))
        .as(
            "deploy/kubernetes/common/prometheusrule.yaml is stale: run this test with -Dvigil.k8s.write=true")
        .isEqualTo(KubernetesGenerated.prometheusRule());
    Map<String, Object> rules = new Yaml().load(Files.readString(KubernetesGenerated.RULES));
    assertThat(map(find(base, "PrometheusRule", "vigil"), "spec").get("groups"))
        .isEqualTo(rules.get("groups"));
  }

  @Test
  void serviceMonitorScrapesEveryJobTheRulesSelect() throws IOException {
    Set<String> jobs = new TreeSet<>();
    Matcher m =
        Pattern.compile("job=\"([^\"]+)\"").matcher(Files.readString(KubernetesGenerated.RULES));
    while (m.find()) {
      jobs.add(m.group(1));
    }
    assertThat(jobs).isNotEmpty();
    Map<String, Object> monitor = find(base, "ServiceMonitor", "vigil");
    Map<String, Object> wanted = map(map(map(monitor, "spec"), "selector"), "matchLabels");
    Set<String> ports = new HashSet<>();
    list(map(monitor, "spec"), "endpoints").forEach(e -> ports.add((String) e.get("port")));
    // Without spec.jobLabel, the Prometheus Operator names the job after the Service.
    assertThat(map(monitor, "spec")).doesNotContainKey("jobLabel");
    Set<String> scraped = new TreeSet<>();
    for (Map<String, Object> service : ofKind(base, "Service")) {
      if (map(service, "metadata").get("labels") instanceof Map<?, ?> labels
          && labels.entrySet().containsAll(wanted.entrySet())) {
        assertThat(list(map(service, "spec"), "ports").stream().map(p -> p.get("name")))
            .as("Service %s has the port the ServiceMonitor scrapes", name(service))
            .containsAnyElementsOf(ports);
        scraped.add(name(service));
      }
    }
    assertThat(scraped).isEqualTo(jobs);
  }

  @Test
  void connectOverlayReplacesTheRelaysWithTheGeneratedConnector() throws IOException {
    assertThat(Files.readString(KubernetesGenerated.KAFKA_CONNECTOR))
        .as(
            "deploy/kubernetes/connect/kafkaconnector.yaml is stale: run with -Dvigil.k8s.write=true")
        .isEqualTo(KubernetesGenerated.kafkaConnector());
    assertThat(connect.stream().filter(o -> "vigil-relay".equals(name(o)))).isEmpty();
    assertThat(String.valueOf(find(connect, "PrometheusRule", "vigil").get("spec")))
        .doesNotContain("vigil-relay");

    Map<String, Object> spec = map(find(connect, "KafkaConnector", "vigil-outbox"), "spec");
    Map<String, Object> config = KubernetesGenerated.connectorConfig();
    assertThat(spec.get("class")).isEqualTo(config.remove("connector.class"));
    assertThat(spec.get("tasksMax"))
        .isEqualTo(Integer.valueOf((String) config.remove("tasks.max")));
    assertThat(map(spec, "config")).isEqualTo(config);
    assertThat(String.valueOf(spec)).doesNotContain("${VIGIL_");
  }

  private static Map<String, Object> podSpec(String deployment) {
    return map(map(map(find(base, "Deployment", deployment), "spec"), "template"), "spec");
  }

  /** The container's env entries by name; fails on a name set twice. */
  private static Map<String, Map<String, Object>> env(String deployment) {
    List<Map<String, Object>> containers = list(podSpec(deployment), "containers");
    assertThat(containers).as("containers of %s", deployment).hasSize(1);
    List<Map<String, Object>> entries = list(containers.getFirst(), "env");
    Map<String, Map<String, Object>> byName =
        entries.stream().collect(Collectors.toMap(e -> (String) e.get("name"), e -> e));
    assertThat(byName).as("env of %s, each name once", deployment).hasSameSizeAs(entries);
    return byName;
  }

  /** Paths of the files the container sees from Secret volumes (every key when items are unset). */
  private static Set<String> secretFiles(
      Map<String, Object> podSpec, Map<String, Object> container) {
    Set<String> files = new TreeSet<>();
    for (Map<String, Object> mount : list(container, "volumeMounts")) {
      for (Map<String, Object> volume : list(podSpec, "volumes")) {
        if (volume.get("name").equals(mount.get("name")) && volume.get("secret") instanceof Map) {
          @SuppressWarnings("unchecked")
          Map<String, Object> secret = (Map<String, Object>) volume.get("secret");
          List<Map<String, Object>> items = list(secret, "items");
          assertThat(items).as("secret volume %s lists its items", volume.get("name")).isNotEmpty();
          items.forEach(i -> files.add(mount.get("mountPath") + "/" + i.get("path")));
        }
      }
    }
    return files;
  }

  private static String httpPath(Map<String, Object> container, String probe) {
    return (String) map(map(container, probe), "httpGet").get("path");
  }
}
