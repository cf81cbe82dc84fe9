package dev.vigil.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped alert rules, dashboard and compose profile ({@code deploy/observability}): promtool
 * accepts the rules and their unit tests pass, every rule is tested firing and quiet, carries a
 * severity and a runbook into the README, and the Prometheus config and compose profile load the
 * shipped files. Real metric names are checked against a running stack by {@code
 * PrometheusRulesIT}.
 */
class AlertRulesTest {
  private static final String NO_PROMTOOL =
      "promtool not installed (Debian package prometheus; .ci/run installs it): rules not checked";
  private static final Pattern RUNBOOK = Pattern.compile("([\\w./-]+\\.md)#([a-z0-9-]+)");
  private static final Pattern JOB = Pattern.compile("job=\"([^\"]+)\"");

  @Test
  void promtoolAcceptsEveryRule() {
    ObservabilityKit.Run check = promtool("check", "rules", "vigil-rules.yaml");

    assertThat(check.exitCode()).as(check.output()).isZero();
    assertThat(check.output()).contains("SUCCESS: " + ObservabilityKit.rules().size() + " rules");
  }

  @Test
  void promtoolUnitTestsOfTheRulesPass() {
    ObservabilityKit.Run test = promtool("test", "rules", "vigil-rules.test.yaml");

    assertThat(test.exitCode()).as(test.output()).isZero();
    assertThat(test.output()).contains("SUCCESS");
  }

  @Test
  @SuppressWarnings("unchecked")
  void everyRuleIsUnitTestedFiringAndQuiet() {
    Set<String> firing = new TreeSet<>();
    Set<String> quiet = new TreeSet<>();
    Map<String, Object> tests = ObservabilityKit.yaml(ObservabilityKit.RULE_TESTS);
    for (Map<String, Object> test : (List<Map<String, Object>>) tests.get("tests")) {
      for (Map<String, Object> alertTest :
          (List<Map<String, Object>>) test.getOrDefault("alert_rule_test", List.of())) {
        List<?> expected = (List<?>) alertTest.get("exp_alerts");
        String alert = (String) alertTest.get("alertname");
        (expected == null || expected.isEmpty() ? quiet : firing).add(alert);
      }
    }
    Set<String> alerts =
        ObservabilityKit.rules().stream()
            .map(ObservabilityKit.Rule::alert)
            .collect(Collectors.toCollection(TreeSet::new));

    assertThat(firing).as("rules with a test case where they fire").isEqualTo(alerts);
    assertThat(quiet).as("rules with a test case where they stay quiet").isEqualTo(alerts);
  }

  @Test
  void everyRuleHasASeverityASummaryADescriptionAndARunbookIntoTheReadme() throws IOException {
    Set<String> names = new HashSet<>();
    for (ObservabilityKit.Rule rule : ObservabilityKit.rules()) {
      assertThat(names.add(rule.alert())).as("alert name %s is unique", rule.alert()).isTrue();
      assertThat(rule.labels().get("severity"))
          .as("severity of %s", rule.alert())
          .isIn("critical", "warning");
      assertThat(rule.annotations().get("summary")).as("summary of %s", rule.alert()).isNotBlank();
      assertThat(rule.annotations().get("description"))
          .as("description of %s", rule.alert())
          .isNotBlank();
      String runbook = rule.annotations().get("runbook");
      Matcher link = RUNBOOK.matcher(String.valueOf(runbook));
      assertThat(link.matches())
          .as("runbook of %s is file.md#anchor relative to the repo, was %s", rule.alert(), runbook)
          .isTrue();
      Path document = ObservabilityKit.REPO_ROOT.resolve(link.group(1));
      assertThat(headingAnchors(document))
          .as("headings of %s (runbook of %s)", link.group(1), rule.alert())
          .contains(link.group(2));
    }
  }

  @Test
  void prometheusConfigScrapesEveryJobTheRulesSelectAndLoadsTheShippedRules(@TempDir Path dir)
      throws IOException {
    Set<String> ruleJobs = new TreeSet<>();
    for (ObservabilityKit.Rule rule : ObservabilityKit.rules()) {
      Matcher job = JOB.matcher(rule.expr());
      while (job.find()) {
        ruleJobs.add(job.group(1));
      }
    }
    Set<String> configJobs = new TreeSet<>();
    Map<String, Object> config = ObservabilityKit.yaml(ObservabilityKit.PROMETHEUS_CONFIG);
    for (Object scrape : (List<?>) config.get("scrape_configs")) {
      configJobs.add((String) ((Map<?, ?>) scrape).get("job_name"));
    }
    assertThat(configJobs).isEqualTo(ruleJobs);
    assertThat(ruleJobs).containsExactly("vigil-monitor", "vigil-notifier", "vigil-relay");

    // The shipped file names the rules where the compose container mounts them; check it as is
    // otherwise.
    Path copy = dir.resolve("prometheus.yml");
    Files.writeString(
        copy,
        Files.readString(ObservabilityKit.PROMETHEUS_CONFIG)
            .replace("/etc/prometheus/vigil-rules.yaml", ObservabilityKit.RULES.toString()));
    ObservabilityKit.Run check = promtool("check", "config", copy.toString());
    assertThat(check.exitCode()).as(check.output()).isZero();
  }

  @Test
  void everyDashboardQueryUsesTheDatasourceVariableAndReadsVigilMetrics() {
    JsonNode dashboard = ObservabilityKit.dashboard();
    assertThat(dashboard.path("uid").asText()).isEqualTo("vigil-pipeline");
    int queries = 0;
    for (JsonNode panel : dashboard.path("panels")) {
      if (panel.path("type").asText().equals("row")) {
        continue;
      }
      String title = panel.path("title").asText();
      assertThat(panel.path("targets").size()).as("queries of panel %s", title).isPositive();
      for (JsonNode target : panel.path("targets")) {
        assertThat(target.path("datasource").path("uid").asText())
            .as("data source of a query of %s", title)
            .isEqualTo("${datasource}");
        assertThat(PromQlMetricNames.of(target.path("expr").asText()))
            .as("metrics read by %s", title)
            .isNotEmpty();
        queries++;
      }
    }
    assertThat(queries).isGreaterThan(20);
    assertThat(ObservabilityKit.metricNames())
        .as("the stages' golden signals")
        .contains(
            "vigil_monitor_probes_total",
            "vigil_monitor_probe_schedule_lag_seconds",
            "vigil_monitor_outbox_rows_written_total",
            "vigil_relay_events_relayed_total",
            "vigil_relay_slot_lag_bytes",
            "vigil_notifier_receipts_total",
            "vigil_notifier_attempts_total",
            "vigil_notifier_dead",
            "vigil_notifier_delivery_latency_seconds_sum");
  }

  @Test
  @SuppressWarnings("unchecked")
  void composeProfileObservabilityRunsPrometheusAndGrafanaOnTheShippedFiles() {
    Map<String, Object> compose =
        ObservabilityKit.yaml(ObservabilityKit.REPO_ROOT.resolve("docker-compose.yaml"));
    Map<String, Map<String, Object>> services =
        (Map<String, Map<String, Object>>) compose.get("services");
    for (String service : List.of("prometheus", "grafana")) {
      assertThat(services).containsKey(service);
      assertThat((List<String>) services.get(service).get("profiles"))
          .as("profiles of %s", service)
          .containsExactly("observability");
      for (String volume : (List<String>) services.get(service).get("volumes")) {
        if (volume.startsWith("./")) {
          Path source =
              ObservabilityKit.REPO_ROOT.resolve(volume.substring(2, volume.indexOf(':')));
          assertThat(source).as("mounted into %s", service).exists();
        }
      }
    }
    assertThat((List<String>) services.get("prometheus").get("volumes"))
        .contains(
            "./deploy/observability/prometheus.yml:/etc/prometheus/prometheus.yml:ro",
            "./deploy/observability/vigil-rules.yaml:/etc/prometheus/vigil-rules.yaml:ro");
    services.forEach(
        (name, service) -> {
          // The profile adds Prometheus and Grafana and nothing else (other profiles, such as
          // connect, are theirs).
          if (!List.of("prometheus", "grafana").contains(name)) {
            assertThat((List<String>) service.getOrDefault("profiles", List.of()))
                .as("profiles of %s", name)
                .doesNotContain("observability");
          }
        });

    Optional<Path> dockerCompose = ObservabilityKit.tool("docker-compose");
    assumeTrue(
        dockerCompose.isPresent(),
        "docker-compose not installed (.ci/run installs it): profile not validated by it");
    ObservabilityKit.Run config =
        ObservabilityKit.run(
            ObservabilityKit.REPO_ROOT,
            List.of(
                dockerCompose.get().toString(),
                "-f",
                "docker-compose.yaml",
                "--profile",
                "observability",
                "config",
                "-q"));
    assertThat(config.exitCode()).as(config.output()).isZero();
  }

  /** Runs promtool in deploy/observability; skips the test when promtool is not installed. */
  private static ObservabilityKit.Run promtool(String... arguments) {
    Optional<Path> promtool = ObservabilityKit.tool("promtool");
    assumeTrue(promtool.isPresent(), NO_PROMTOOL);
    List<String> command = new ArrayList<>();
    command.add(promtool.get().toString());
    command.addAll(List.of(arguments));
    return ObservabilityKit.run(ObservabilityKit.DIR, command);
  }

  /**
   * GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, '-' for ' '.
   */
  private static Set<String> headingAnchors(Path markdown) throws IOException {
    return Files.readAllLines(markdown).stream()
        .filter(line -> line.matches("#{1,6} .*"))
        .map(line -> line.replaceFirst("#{1,6} ", "").trim().toLowerCase(Locale.ROOT))
        .map(title -> title.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'))
        .collect(Collectors.toSet());
  }
}
