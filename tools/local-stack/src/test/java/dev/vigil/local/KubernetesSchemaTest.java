package dev.vigil.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.strimzi.api.kafka.model.connector.KafkaConnector;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every object deploy/kubernetes renders (the base and the connect overlay) read into the typed
 * model of its kind: fabric8's Kubernetes models for the built-in kinds, fabric8's Prometheus
 * Operator models and Strimzi's API for the custom resources. A field the schema does not have
 * (fabric8 and Strimzi keep those in {@code additionalProperties}), a value of the wrong type, an
 * unknown apiVersion or kind fails. No cluster is involved: this checks the shape of each object,
 * not what an API server would admit (admission webhooks, quotas, installed CRD versions).
 */
class KubernetesSchemaTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** The model of every apiVersion and kind the manifests may use; anything else fails. */
  private static final Map<String, Class<? extends HasMetadata>> MODELS =
      Map.of(
          "v1/ConfigMap", ConfigMap.class,
          "v1/Service", Service.class,
          "apps/v1/Deployment", Deployment.class,
          "policy/v1/PodDisruptionBudget", PodDisruptionBudget.class,
          "monitoring.coreos.com/v1/ServiceMonitor", ServiceMonitor.class,
          "monitoring.coreos.com/v1/PrometheusRule", PrometheusRule.class,
          "kafka.strimzi.io/v1/KafkaConnector", KafkaConnector.class);

  static Stream<Path> kustomizations() {
    return Stream.of(Kustomize.BASE, Kustomize.CONNECT);
  }

  @ParameterizedTest
  @MethodSource("kustomizations")
  void everyObjectMatchesTheSchemaOfItsKind(Path kustomization) {
    List<Map<String, Object>> objects = Kustomize.render(kustomization);
    assertThat(objects).isNotEmpty();
    for (Map<String, Object> object : objects) {
      String type = object.get("apiVersion") + "/" + object.get("kind");
      Class<? extends HasMetadata> model = MODELS.get(type);
      assertThat(model).as("a schema for %s %s", type, Kustomize.name(object)).isNotNull();
      HasMetadata typed = SERIALIZATION.convertValue(object, model);
      List<String> unknown = new ArrayList<>();
      unknownFields(typed, type + " " + Kustomize.name(object), unknown);
      assertThat(unknown).as("fields the schema of %s does not have", type).isEmpty();
      assertThat(typed.getMetadata().getName()).as("metadata.name of %s", type).isNotBlank();
    }
  }

  @ParameterizedTest
  @MethodSource("kustomizations")
  void customResourcesUseAnApiVersionTheirOperatorServes(Path kustomization) {
    for (Map<String, Object> object : Kustomize.render(kustomization)) {
      if ("KafkaConnector".equals(object.get("kind"))) {
        assertThat(
                KafkaConnector.VERSIONS.stream().map(v -> KafkaConnector.RESOURCE_GROUP + "/" + v))
            .contains((String) object.get("apiVersion"));
      }
    }
  }

  /**
   * Walks the typed object and collects every path whose {@code additionalProperties} are not
   * empty: fields the model (the schema) does not declare, such as a misspelled key.
   */
  private static void unknownFields(Object value, String path, List<String> unknown) {
    if (value == null) {
      return;
    }
    if (value instanceof Collection<?> items) {
      int i = 0;
      for (Object item : items) {
        unknownFields(item, path + "[" + i++ + "]", unknown);
      }
      return;
    }
    if (value instanceof Map<?, ?> entries) {
      entries.forEach((k, v) -> unknownFields(v, path + "." + k, unknown));
      return;
    }
    String type = value.getClass().getName();
    if (!type.startsWith("io.fabric8.") && !type.startsWith("io.strimzi.")) {
      return;
    }
    for (Method getter : value.getClass().getMethods()) {
      if (getter.getParameterCount() != 0
          || Modifier.isStatic(getter.getModifiers())
          || getter.getDeclaringClass() == Object.class
          || !(getter.getName().startsWith("get") || getter.getName().startsWith("is"))) {
        continue;
      }
      Object child;
      try {
        child = getter.invoke(value);
      } catch (IllegalAccessException | InvocationTargetException e) {
        continue; // not a plain property (e.g. a computed accessor that needs more state)
      }
      if (getter.getName().equals("getAdditionalProperties")) {
        if (child instanceof Map<?, ?> extra && !extra.isEmpty()) {
          unknown.add(path + ": " + extra.keySet());
        }
      } else if (child != value) {
        unknownFields(child, path + "." + getter.getName(), unknown);
      }
    }
  }
}
