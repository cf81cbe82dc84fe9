package dev.vigil.local;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The two files of deploy/kubernetes that are generated, never written by hand: the PrometheusRule
 * from deploy/observability/vigil-rules.yaml and the Strimzi KafkaConnector from
 * tools/kafka-connect/connector/vigil-outbox-connector.json. {@code KubernetesManifestsTest} fails
 * when a file differs from what is generated here, and rewrites both when run with {@code
 * -Dvigil.k8s.write=true}.
 */
final class KubernetesGenerated {
  static final Path RULES = Kustomize.REPO_ROOT.resolve("deploy/observability/vigil-rules.yaml");
  static final Path PROMETHEUS_RULE =
      Kustomize.REPO_ROOT.resolve("deploy/kubernetes/common/prometheusrule.yaml");
  static final Path CONNECTOR_JSON =
      Kustomize.REPO_ROOT.resolve("tools/kafka-connect/connector/vigil-outbox-connector.json");
  static final Path KAFKA_CONNECTOR = Kustomize.CONNECT.resolve("kafkaconnector.yaml");

  /** The Strimzi KafkaConnect cluster the connector belongs to (its strimzi.io/cluster label). */
  static final String CONNECT_CLUSTER = "vigil-connect";

  /**
   * What the worker image's entrypoint (tools/kafka-connect/docker/vigil-connect.sh) fills into the
   * connector's {@code ${VIGIL_*}} placeholders, here fixed at generation: its defaults, except the
   * database address (as external.yaml), the replication factor of a production cluster, the
   * snapshot mode of compose and the relays, and where the KafkaConnect pod mounts vigil-secrets.
   */
  static final Map<String, String> CONNECTOR_VALUES =
      Map.ofEntries(
          Map.entry("VIGIL_CONNECT_CONNECTOR_NAME", "vigil-outbox"),
          Map.entry("VIGIL_DB_HOST", "postgres.example.internal"),
          Map.entry("VIGIL_DB_PORT", "5432"),
          Map.entry("VIGIL_DB_NAME", "vigil"),
          Map.entry("VIGIL_DB_USER", "vigil"),
          Map.entry("VIGIL_DB_SSLMODE", "require"),
          Map.entry("VIGIL_CONNECT_SECRETS_DIR", "/mnt/vigil-secrets"),
          Map.entry("VIGIL_CONNECT_SLOT", "vigil_connect"),
          Map.entry("VIGIL_CONNECT_PUBLICATION", "vigil_connect"),
          Map.entry("VIGIL_CONNECT_PUBLICATION_AUTOCREATE", "filtered"),
          Map.entry("VIGIL_CONNECT_SNAPSHOT_MODE", "initial"),
          Map.entry("VIGIL_CONNECT_HEARTBEAT_INTERVAL_MS", "10000"),
          Map.entry("VIGIL_TOPIC", "vigil.alerts"),
          Map.entry("VIGIL_TOPIC_PARTITIONS", "6"),
          Map.entry("VIGIL_TOPIC_REPLICATION_FACTOR", "3"));

  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(VIGIL_[A-Z0-9_]+)}");

  private KubernetesGenerated() {}

  /** vigil-rules.yaml's groups, as they are (text), under a PrometheusRule's spec. */
  static String prometheusRule() throws IOException {
    List<String> lines = Files.readAllLines(RULES);
    int groups = lines.indexOf("groups:");
    if (groups < 0) {
      throw new AssertionError(RULES + " has no top-level 'groups:' line");
    }
    StringBuilder out = new StringBuilder();
    out.append(
        """
        # Generated from deploy/observability/vigil-rules.yaml by KubernetesGenerated (tools/local-stack tests):
        # do not edit; change the rules there and run KubernetesManifestsTest with -Dvigil.k8s.write=true.
        # Add the labels your Prometheus's ruleSelector expects (e.g. release: <your Prometheus release>) in an
        # overlay. The rules select the jobs vigil-monitor, vigil-relay and vigil-notifier: the Service names.
        apiVersion: monitoring.coreos.com/v1
        kind: PrometheusRule
        metadata:
          name: vigil
          labels:
            app.kubernetes.io/part-of: vigil
        spec:
        """);
    for (String line : lines.subList(groups, lines.size())) {
      // Indenting every line keeps block scalars (>-) and comments as they are.
      out.append(line.isEmpty() ? "" : "  " + line).append('\n');
    }
    return out.toString();
  }

  /**
   * The connector of tools/kafka-connect as a Strimzi KafkaConnector: connector.class and tasks.max
   * become spec.class and spec.tasksMax (Strimzi refuses them in config), every other key is kept
   * with its placeholders filled from {@link #CONNECTOR_VALUES}.
   */
  static String kafkaConnector() throws IOException {
    Map<String, Object> spec = new LinkedHashMap<>();
    Map<String, Object> config = connectorConfig();
    spec.put("class", config.remove("connector.class"));
    spec.put("tasksMax", Integer.valueOf((String) config.remove("tasks.max")));
    spec.put("config", config);
    Map<String, Object> object = new LinkedHashMap<>();
    object.put("apiVersion", "kafka.strimzi.io/v1");
    object.put("kind", "KafkaConnector");
    Map<String, Object> labels = new LinkedHashMap<>();
    labels.put("strimzi.io/cluster", CONNECT_CLUSTER);
    labels.put("app.kubernetes.io/part-of", "vigil");
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("name", CONNECTOR_VALUES.get("VIGIL_CONNECT_CONNECTOR_NAME"));
    metadata.put("labels", labels);
    object.put("metadata", metadata);
    object.put("spec", spec);
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    options.setWidth(200);
    return """
        # Generated from tools/kafka-connect/connector/vigil-outbox-connector.json by KubernetesGenerated
        # (tools/local-stack tests): do not edit; change the connector there and run KubernetesManifestsTest with
        # -Dvigil.k8s.write=true. Placeholders are filled with KubernetesGenerated.CONNECTOR_VALUES; edit the
        # database address and the strimzi.io/cluster label in an overlay.
        """
        + new Yaml(options).dump(object);
  }

  /**
   * The connector's config with every placeholder filled; fails on a placeholder without a value.
   */
  @SuppressWarnings("unchecked")
  static Map<String, Object> connectorConfig() throws IOException {
    Map<String, Object> json = new ObjectMapper().readValue(CONNECTOR_JSON.toFile(), Map.class);
    Map<String, Object> config = new LinkedHashMap<>();
    ((Map<String, Object>) json.get("config"))
        .forEach((key, value) -> config.put(key, fill(key, (String) value)));
    return config;
  }

  private static String fill(String key, String value) {
    Matcher m = PLACEHOLDER.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String filled = CONNECTOR_VALUES.get(m.group(1));
      if (filled == null) {
        throw new AssertionError(
            "connector key " + key + " uses ${" + m.group(1) + "}, which has no Kubernetes value");
      }
      m.appendReplacement(out, Matcher.quoteReplacement(filled));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** Rewrites both generated files (used by the test with -Dvigil.k8s.write=true). */
  static void write() throws IOException {
    Files.writeString(PROMETHEUS_RULE, prometheusRule());
    Files.writeString(KAFKA_CONNECTOR, kafkaConnector());
  }
}
