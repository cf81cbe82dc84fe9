package dev.vigil.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus (Debian package {@code prometheus}) scrapes the in-JVM local stack every second
 * and evaluates the shipped rule file: every metric name the rules and the dashboard read exists,
 * and stopping the relay makes the relay-down rules fire.
 *
 * <p>The rules are evaluated with every {@code for:} shortened to {@value #SHORT_FOR}: this test
 * proves that the expressions match the real metrics; how long a condition must hold before a rule
 * fires is proven by the promtool unit tests of the rule file ({@code AlertRulesTest}), on
 * simulated time, without making the build wait minutes.
 */
@ExtendWith(VigilInfraExtension.class)
class PrometheusRulesIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SHORT_FOR = "5s";
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void rulesAndDashboardReadRealMetricsAndRelayDownFiresWhenTheRelayStops(
      TestDatabase db, TestKafka kafka, @TempDir Path dir) throws Exception {
    Optional<Path> prometheus = ObservabilityKit.tool("prometheus");
    assumeTrue(
        prometheus.isPresent(),
        "prometheus not installed (Debian package prometheus; .ci/run installs it): not run");
    Set<String> used = ObservabilityKit.metricNames();
    LocalStack.Backing backing =
        new LocalStack.Backing(db.jdbcUrl(), db.user(), db.password(), kafka.bootstrapServers());
    LocalStackOptions options = new LocalStackOptions(dir.resolve("data"), null, null, 0);

    // Replication slots are server-wide: a slot of its own, dropped at the end, so other tests of
    // this JVM (sharing the embedded PostgreSQL) can use the default one.
    String slot = "vigil_prometheus_it";
    try (LocalStack stack =
        LocalStack.start(
            options,
            backing,
            Map.of("VIGIL_RELAY_SLOT", slot),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))) {
      int port = freePort();
      Path config = writeConfig(dir, stack);
      Process server =
          new ProcessBuilder(
                  prometheus.get().toString(),
                  "--config.file=" + config,
                  "--storage.tsdb.path=" + dir.resolve("tsdb"),
                  "--web.listen-address=127.0.0.1:" + port,
                  "--log.level=warn")
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("prometheus.log").toFile())
              .start();
      try {
        String api = "http://127.0.0.1:" + port;
        await("Prometheus ready (log: " + dir.resolve("prometheus.log") + ")")
            .atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofMillis(500))
            .ignoreExceptions()
            .until(() -> get(api + "/-/ready").statusCode() == 200);

        await("every metric of the rules and the dashboard scraped")
            .atMost(Duration.ofMinutes(3))
            .pollInterval(Duration.ofSeconds(1))
            .untilAsserted(
                () -> {
                  Set<String> missing = new TreeSet<>(used);
                  missing.removeAll(scrapedNames(api));
                  assertThat(missing)
                      .as("metrics the rules or the dashboard read, not scraped")
                      .isEmpty();
                });
        await("the relay scraped as up and active")
            .atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofSeconds(1))
            .until(() -> "1".equals(value(api, "sum(vigil_relay_active)")));
        // Evaluated every second: a rule evaluated before that scrape may still be pending.
        await("the relay's rules settled: neither pending nor firing")
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofSeconds(1))
            .untilAsserted(
                () -> {
                  assertThat(alertStates(api, "VigilRelayDown")).isEmpty();
                  assertThat(alertStates(api, "VigilRelayActiveNotOne")).isEmpty();
                });

        stack.stopRelay();

        // Both rules wait for SHORT_FOR of the condition before they fire.
        await("VigilRelayDown and VigilRelayActiveNotOne firing")
            .atMost(Duration.ofMinutes(5))
            .pollInterval(Duration.ofSeconds(2))
            .untilAsserted(
                () -> {
                  assertThat(alertStates(api, "VigilRelayDown")).containsExactly("firing");
                  assertThat(alertStates(api, "VigilRelayActiveNotOne")).containsExactly("firing");
                });
      } finally {
        server.destroy();
        if (!server.waitFor(30, TimeUnit.SECONDS)) {
          server.destroyForcibly();
        }
      }
    } finally {
      dropSlot(db, slot);
    }
  }

  private static void dropSlot(TestDatabase db, String slot) throws Exception {
    try (Connection connection = db.connect();
        PreparedStatement drop =
            connection.prepareStatement(
                "select pg_drop_replication_slot(slot_name) from pg_replication_slots"
                    + " where slot_name = ? and not active")) {
      drop.setString(1, slot);
      drop.execute();
    }
  }

  /**
   * A config like the shipped prometheus.yml (same job names) scraping the stack's ports every
   * second, with the shipped rules (their {@code for:} shortened) evaluated every second.
   */
  private static Path writeConfig(Path dir, LocalStack stack) throws IOException {
    Path rules = dir.resolve("vigil-rules.yaml");
    String shipped = Files.readString(ObservabilityKit.RULES);
    String shortened = shipped.replaceAll("(?m)^(\\s+for:) \\S+$", "$1 " + SHORT_FOR);
    assertThat(shortened).as("the rules' for: durations shortened").isNotEqualTo(shipped);
    Files.writeString(rules, shortened);
    Path config = dir.resolve("prometheus.yml");
    Files.writeString(
        config,
        """
        global:
          scrape_interval: 1s
          scrape_timeout: 1s
          evaluation_interval: 1s
        rule_files:
          - %s
        scrape_configs:
          - job_name: vigil-monitor
            static_configs: [{targets: ["127.0.0.1:%d"]}]
          - job_name: vigil-relay
            static_configs: [{targets: ["127.0.0.1:%d"]}]
          - job_name: vigil-notifier
            static_configs: [{targets: ["127.0.0.1:%d"]}]
        """
            .formatted(rules, stack.monitorPort(), stack.relayPort(), stack.notifierPort()));
    return config;
  }

  private Set<String> scrapedNames(String api) throws Exception {
    Set<String> names = new TreeSet<>();
    for (JsonNode name : query(api + "/api/v1/label/__name__/values")) {
      names.add(name.asText());
    }
    return names;
  }

  private String value(String api, String promql) throws Exception {
    JsonNode result =
        query(api + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8))
            .path("result");
    return result.isEmpty() ? null : result.get(0).path("value").get(1).asText();
  }

  private Set<String> alertStates(String api, String alertName) throws Exception {
    Set<String> states = new TreeSet<>();
    for (JsonNode alert : query(api + "/api/v1/alerts").path("alerts")) {
      if (alertName.equals(alert.path("labels").path("alertname").asText())) {
        states.add(alert.path("state").asText());
      }
    }
    return states;
  }

  private JsonNode query(String url) throws Exception {
    HttpResponse<String> response = get(url);
    assertThat(response.statusCode()).as("%s: %s", url, response.body()).isEqualTo(200);
    JsonNode body = JSON.readTree(response.body());
    assertThat(body.path("status").asText()).as(response.body()).isEqualTo("success");
    return body.path("data");
  }

  private HttpResponse<String> get(String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port for Prometheus", e);
    }
  }
}
