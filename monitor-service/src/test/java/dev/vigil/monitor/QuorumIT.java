package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.vigil.harness.failover.TcpForwarder;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three monitor instances, one per location, each a process of its own that reaches the same target
 * through its own fault-injecting TCP forwarder: each process resolves the target's host name to
 * its own loopback address (a hosts file of its own, {@code jdk.net.hosts.file}), where that
 * location's forwarder listens. Cutting a location is moving its forwarder to a closed port. A
 * fourth instance in this JVM probes nothing; it serves the API, /health and /metrics, and takes
 * the pushes of a remote checker.
 *
 * <p>One story in order, since each step starts from the state the one before left: one location
 * cut (no FAILED), two cut (exactly one FAILED naming both), healed (one RECOVERED), a failing
 * location's instance killed with SIGKILL (stale: it no longer counts, no false FAILED when another
 * location fails; a target needing all three locations shows degraded monitoring), and a remote
 * checker pushing as a fourth location (counts towards the quorum).
 */
@ExtendWith(VigilInfraExtension.class)
class QuorumIT {
  private static final String HOST = "quorum-target.test";
  private static final List<String> LOCATIONS = List.of("eu-west", "us-east", "ap-south");
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aQuorumOfFreshLocationsPagesOnceAndAStaleOneNeverCounts(TestDatabase db, @TempDir Path dir)
      throws Exception {
    MonitorSchema.migrate(db.dataSource());
    HttpServer target = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
    target.createContext(
        "/",
        exchange -> {
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    target.start();
    int closedPort = closedPort();
    Map<String, TcpForwarder> paths = new LinkedHashMap<>();
    Map<String, Process> instances = new LinkedHashMap<>();
    HttpClient http = HttpClient.newHttpClient();
    try {
      int port = 0;
      for (int i = 0; i < LOCATIONS.size(); i++) {
        InetAddress address = InetAddress.getByName("127.0.0." + (i + 2));
        TcpForwarder path = TcpForwarder.start(address, port, target.getAddress().getPort());
        port = path.port();
        paths.put(LOCATIONS.get(i), path);
      }
      URI url = URI.create("http://" + HOST + ":" + port + "/health");
      new TargetStore(db.dataSource())
          .upsertAll(
              List.of(target("quorum-web", url, null), target("quorum-all", url, 3)),
              TargetStore.Source.API);
      for (int i = 0; i < LOCATIONS.size(); i++) {
        instances.put(LOCATIONS.get(i), start(db, dir, LOCATIONS.get(i), "127.0.0." + (i + 2)));
      }
      try (MonitorService api =
          MonitorService.start(
              new MonitorConfig(new Settings(TestMonitor.settings(db, null, false))))) {
        DataSource data = db.dataSource();
        await("every location reports the target up")
            .atMost(WAIT)
            .until(() -> locationsIn(data, "quorum-web", "up") == 3);

        // One location cut off from a healthy target: it fails on its own, nothing is announced.
        paths.get("eu-west").retarget(closedPort);
        await("eu-west failing")
            .atMost(WAIT)
            .until(() -> locationsIn(data, "quorum-web", "failing") == 1);
        awaitMoreResults(data, "us-east", "ap-south");
        assertThat(events(data, "quorum-web")).isEmpty();

        // Two of three cut off: exactly one FAILED, naming both.
        paths.get("us-east").retarget(closedPort);
        await("one FAILED").atMost(WAIT).until(() -> events(data, "quorum-web").size() == 1);
        awaitMoreResults(data, "eu-west", "us-east", "ap-south");
        List<JsonNode> events = events(data, "quorum-web");
        assertThat(events).hasSize(1);
        JsonNode failed = events.getFirst();
        assertThat(failed.get("kind").asText()).isEqualTo("FAILED");
        assertThat(failed.get("locations").get("eu-west").asText()).isNotEqualTo("up");
        assertThat(failed.get("locations").get("us-east").asText()).isNotEqualTo("up");
        assertThat(failed.get("locations").get("ap-south").asText()).isEqualTo("up");
        JsonNode down = service(http, api, "quorum-web");
        assertThat(down.get("state").asText()).isEqualTo("DOWN");
        assertThat(down.get("locations").findValuesAsText("state")).contains("failing", "up");

        // Healed: one RECOVERED for the same incident.
        paths.get("eu-west").retarget(target.getAddress().getPort());
        paths.get("us-east").retarget(target.getAddress().getPort());
        await("one RECOVERED").atMost(WAIT).until(() -> events(data, "quorum-web").size() == 2);
        awaitMoreResults(data, "eu-west", "us-east", "ap-south");
        events = events(data, "quorum-web");
        assertThat(events).hasSize(2);
        assertThat(events.get(1).get("kind").asText()).isEqualTo("RECOVERED");
        assertThat(events.get(1).get("incidentId")).isEqualTo(failed.get("incidentId"));

        // A failing location's instance is killed: once stale it neither counts towards a FAILED
        // when another location fails, nor is the target needing all three shown as up.
        paths.get("ap-south").retarget(closedPort);
        await("ap-south failing")
            .atMost(WAIT)
            .until(() -> locationsIn(data, "quorum-web", "failing") == 1);
        instances.get("ap-south").destroyForcibly().waitFor();
        await("ap-south stale, quorum-all degraded")
            .atMost(WAIT)
            .until(
                () ->
                    service(http, api, "quorum-all").get("monitoring").asText().equals("degraded"));
        JsonNode degraded = service(http, api, "quorum-all");
        assertThat(degraded.get("state").asText()).isEqualTo("DEGRADED");
        assertThat(locationState(degraded, "ap-south")).isEqualTo("stale");
        assertThat(TestMonitor.send(http, api.httpPort(), "GET", "/health", null, null).body())
            .contains("degraded monitoring")
            .contains("quorum-all");
        assertThat(
                TestMonitor.send(
                        http, api.httpPort(), "GET", "/status/services/quorum-all", null, null)
                    .body())
            .contains("<span class=\"state degraded\">DEGRADED</span>")
            .contains("ap-south stale")
            .doesNotContain("<span class=\"state up\">");
        assertThat(TestMonitor.send(http, api.httpPort(), "GET", "/metrics", null, null).body())
            .containsPattern("vigil_monitor_targets_degraded\\S* 1\\.0");
        paths.get("eu-west").retarget(closedPort);
        await("eu-west failing again")
            .atMost(WAIT)
            .until(
                () -> locationState(service(http, api, "quorum-web"), "eu-west").equals("failing"));
        awaitMoreResults(data, "eu-west", "us-east");
        assertThat(events(data, "quorum-web"))
            .as("no false FAILED from a stale location")
            .hasSize(2);

        // A remote checker pushing as a fourth location counts towards the quorum.
        for (int i = 0; i < 2; i++) {
          String body = "{\"status\":\"DOWN\",\"error\":\"HTTP 503\",\"location\":\"remote\"}";
          assertThat(
                  TestMonitor.send(
                          http,
                          api.httpPort(),
                          "POST",
                          "/api/services/quorum-web/results",
                          body,
                          TestMonitor.TOKEN)
                      .statusCode())
              .isEqualTo(200);
        }
        events = events(data, "quorum-web");
        assertThat(events).hasSize(3);
        JsonNode second = events.get(2);
        assertThat(second.get("kind").asText()).isEqualTo("FAILED");
        assertThat(second.get("locations").get("remote").asText()).isEqualTo("HTTP 503");
        assertThat(second.get("locations").get("eu-west").asText()).isNotEqualTo("up");
        assertThat(second.get("locations").has("ap-south")).as("stale: not a verdict").isFalse();
      }
    } finally {
      instances.values().forEach(Process::destroyForcibly);
      paths.values().forEach(TcpForwarder::close);
      target.stop(0);
    }
  }

  private static TargetSpec target(String name, URI url, Integer quorum) {
    return TargetSpec.builder(name, TargetKind.HTTP)
        .url(url)
        // Generous timeouts: a cut location fails at once (its forwarder refuses), while a healthy
        // one must not time out on a loaded machine. Stale after 3 x 3 s + 2.5 s.
        .interval(Duration.ofSeconds(3))
        .timeout(Duration.ofMillis(2500))
        .connectTimeout(Duration.ofSeconds(1))
        .thresholds(2, 2)
        .locations(LOCATIONS, quorum)
        .build();
  }

  /** A monitor process of {@code location} that resolves the target's host to {@code address}. */
  private static Process start(TestDatabase db, Path dir, String location, String address)
      throws Exception {
    Path hosts = dir.resolve(location + ".hosts");
    Files.writeString(hosts, "127.0.0.1 localhost\n" + address + " " + HOST + "\n");
    String java = ProcessHandle.current().info().command().orElseThrow();
    ProcessBuilder builder =
        new ProcessBuilder(
            java,
            "-Xmx192m",
            "-XX:TieredStopAtLevel=1",
            "-Djdk.net.hosts.file=" + hosts,
            "-cp",
            System.getProperty("java.class.path"),
            "dev.vigil.monitor.MonitorMain");
    Map<String, String> env = TestMonitor.settings(db, null, true);
    env.put("VIGIL_INSTANCE_ID", location + "-1");
    env.put("VIGIL_MONITOR_LOCATION", location);
    env.put("VIGIL_MONITOR_LEASE", "1s");
    env.put("VIGIL_MONITOR_CLAIM_POLL_INTERVAL", "100ms");
    builder.environment().putAll(env);
    File log = Path.of("target", "quorum-" + location + ".log").toFile();
    builder.redirectErrorStream(true).redirectOutput(log);
    return builder.start();
  }

  private static int closedPort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static long locationsIn(DataSource data, String service, String state) {
    String condition =
        switch (state) {
          case "up" -> "last_status = 'UP' and not failing";
          case "failing" -> "failing";
          default -> throw new IllegalArgumentException(state);
        };
    return Tables.count(
        data,
        "select count(*) from location_state where service = '"
            + service
            + "' and recorded_at > now() - interval '10 seconds' and "
            + condition);
  }

  /** Waits until each of {@code locations} recorded three more results for quorum-web. */
  private static void awaitMoreResults(DataSource data, String... locations) {
    Map<String, Long> before = new LinkedHashMap<>();
    for (String location : locations) {
      before.put(location, results(data, location));
    }
    await("three more results from " + before.keySet())
        .atMost(WAIT)
        .until(
            () ->
                before.entrySet().stream()
                    .allMatch(e -> results(data, e.getKey()) >= e.getValue() + 3));
  }

  private static long results(DataSource data, String location) {
    return Tables.count(
        data,
        "select count(*) from check_history where service = 'quorum-web' and location = '"
            + location
            + "'");
  }

  private static List<JsonNode> events(DataSource data, String service) throws Exception {
    List<JsonNode> events = new ArrayList<>();
    try (var connection = data.getConnection()) {
      for (String row :
          Tables.rows(
              connection,
              "select payload from outbox where aggregateid = '" + service + "' order by seq")) {
        events.add(JSON.readTree(row));
      }
    }
    return events;
  }

  private static JsonNode service(HttpClient http, MonitorService api, String name)
      throws Exception {
    return JSON.readTree(
        TestMonitor.send(
                http, api.httpPort(), "GET", "/api/services/" + name, null, TestMonitor.TOKEN)
            .body());
  }

  private static String locationState(JsonNode service, String location) {
    for (JsonNode l : service.get("locations")) {
      if (l.get("location").asText().equals(location)) {
        return l.get("state").asText();
      }
    }
    return "absent";
  }
}
