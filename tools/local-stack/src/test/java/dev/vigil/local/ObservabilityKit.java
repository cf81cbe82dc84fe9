package dev.vigil.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.yaml.snakeyaml.Yaml;

/**
 * The shipped observability kit ({@code deploy/observability}) as the tests read it: the alert
 * rules, the dashboard's queries, the metric names both use, and the Prometheus tools on this
 * machine.
 */
final class ObservabilityKit {
  static final Path REPO_ROOT = Path.of("../..").toAbsolutePath().normalize();
  static final Path DIR = REPO_ROOT.resolve("deploy/observability");
  static final Path RULES = DIR.resolve("vigil-rules.yaml");
  static final Path RULE_TESTS = DIR.resolve("vigil-rules.test.yaml");
  static final Path PROMETHEUS_CONFIG = DIR.resolve("prometheus.yml");
  static final Path DASHBOARD = DIR.resolve("grafana/dashboards/vigil-pipeline.json");

  /** One alerting rule of the shipped file. */
  record Rule(
      String group,
      String alert,
      String expr,
      Map<String, String> labels,
      Map<String, String> annotations) {}

  /** What a command printed and how it ended. */
  record Run(int exitCode, String output) {}

  private ObservabilityKit() {}

  @SuppressWarnings("unchecked")
  static List<Rule> rules() {
    Map<String, Object> file = yaml(RULES);
    List<Rule> rules = new ArrayList<>();
    for (Map<String, Object> group : (List<Map<String, Object>>) file.get("groups")) {
      for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
        rules.add(
            new Rule(
                (String) group.get("name"),
                (String) rule.get("alert"),
                String.valueOf(rule.get("expr")),
                (Map<String, String>) rule.getOrDefault("labels", Map.of()),
                (Map<String, String>) rule.getOrDefault("annotations", Map.of())));
      }
    }
    return rules;
  }

  /** The PromQL of every query of every panel of the dashboard. */
  static List<String> dashboardExpressions() {
    List<String> expressions = new ArrayList<>();
    for (JsonNode panel : dashboard().path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        expressions.add(target.path("expr").asText());
      }
    }
    return expressions;
  }

  static JsonNode dashboard() {
    try {
      return new ObjectMapper().readTree(DASHBOARD.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + DASHBOARD, e);
    }
  }

  /** Every metric name the rules and the dashboard read. */
  static Set<String> metricNames() {
    Set<String> names = new TreeSet<>();
    rules().forEach(rule -> names.addAll(PromQlMetricNames.of(rule.expr())));
    dashboardExpressions().forEach(expr -> names.addAll(PromQlMetricNames.of(expr)));
    return names;
  }

  static Map<String, Object> yaml(Path file) {
    try {
      return new Yaml().load(Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /**
   * A Prometheus tool ({@code promtool}, {@code prometheus}) on the {@code PATH} or in {@code
   * /usr/bin} (Debian package {@code prometheus}), if installed.
   */
  static Optional<Path> tool(String name) {
    String path = System.getenv().getOrDefault("PATH", "");
    List<Path> candidates = new ArrayList<>();
    for (String dir : path.split(java.io.File.pathSeparator)) {
      if (!dir.isBlank()) {
        candidates.add(Path.of(dir, name));
      }
    }
    candidates.add(Path.of("/usr/bin", name));
    return candidates.stream().filter(Files::isExecutable).findFirst();
  }

  /** Runs a command in {@code dir}, waiting at most two minutes. */
  static Run run(Path dir, List<String> command) {
    try {
      Process process =
          new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
      byte[] output;
      try (var in = process.getInputStream()) {
        output = in.readAllBytes();
      }
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException("timed out: " + command);
      }
      return new Run(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command, e);
    }
  }
}
