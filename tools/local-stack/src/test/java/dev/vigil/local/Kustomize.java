package dev.vigil.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.yaml.snakeyaml.Yaml;

/**
 * Renders a kustomization with {@code kubectl kustomize}, as a user would, and parses the objects.
 * kubectl comes from Debian's {@code kubernetes-client} package (.ci/run installs it); without it
 * the tests fail and say so rather than skip.
 */
final class Kustomize {
  static final Path REPO_ROOT = Path.of("../..");
  static final Path BASE = REPO_ROOT.resolve("deploy/kubernetes/base");
  static final Path CONNECT = REPO_ROOT.resolve("deploy/kubernetes/connect");

  private Kustomize() {}

  /** The objects {@code kubectl kustomize dir} prints, in its order. */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> render(Path dir) {
    String kubectl = System.getProperty("vigil.kubectl", "kubectl");
    Process process;
    try {
      process =
          new ProcessBuilder(kubectl, "kustomize", dir.toAbsolutePath().normalize().toString())
              .redirectErrorStream(false)
              .start();
    } catch (IOException e) {
      throw new AssertionError(
          "cannot run '"
              + kubectl
              + " kustomize': kubectl renders deploy/kubernetes in this test; install it (Debian:"
              + " apt-get install kubernetes-client, as .ci/run does) or name it with"
              + " -Dvigil.kubectl=PATH",
          e);
    }
    try {
      process.getOutputStream().close();
      var stderr = process.getErrorStream();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      String err = new String(stderr.readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError(kubectl + " kustomize " + dir + " did not finish within 60 s");
      }
      if (process.exitValue() != 0) {
        throw new AssertionError(
            kubectl + " kustomize " + dir + " failed (" + process.exitValue() + "): " + err);
      }
      List<Map<String, Object>> objects = new ArrayList<>();
      for (Object doc : new Yaml().loadAll(out)) {
        if (doc != null) {
          objects.add((Map<String, Object>) doc);
        }
      }
      return objects;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new AssertionError("interrupted while rendering " + dir, e);
    }
  }

  /** The one object of this kind and name; fails when there is none or more than one. */
  static Map<String, Object> find(List<Map<String, Object>> objects, String kind, String name) {
    List<Map<String, Object>> found =
        objects.stream().filter(o -> kind.equals(o.get("kind")) && name.equals(name(o))).toList();
    if (found.size() != 1) {
      throw new AssertionError(found.size() + " objects " + kind + "/" + name + " rendered");
    }
    return found.getFirst();
  }

  static List<Map<String, Object>> ofKind(List<Map<String, Object>> objects, String kind) {
    return objects.stream().filter(o -> kind.equals(o.get("kind"))).toList();
  }

  static String name(Map<String, Object> object) {
    return (String) map(object, "metadata").get("name");
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Map<String, Object> parent, String key) {
    Object value = parent.get(key);
    if (!(value instanceof Map)) {
      throw new AssertionError("'" + key + "' is not a map in " + parent.keySet());
    }
    return (Map<String, Object>) value;
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> list(Map<String, Object> parent, String key) {
    Object value = parent.getOrDefault(key, List.of());
    if (!(value instanceof List)) {
      throw new AssertionError("'" + key + "' is not a list in " + parent.keySet());
    }
    return (List<Map<String, Object>>) value;
  }
}
