package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The replay as operators use it: {@code POST /api/outbox/replay} and the {@code replay} command.
 */
@ExtendWith(VigilInfraExtension.class)
class ReplayApiIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newHttpClient();
  private MonitorService monitor;
  private Map<String, String> settings;

  @BeforeEach
  void start(TestDatabase db) throws Exception {
    settings = TestMonitor.settings(db, null, false);
    monitor = MonitorService.start(new MonitorConfig(new Settings(settings)));
    assertThat(post("/api/targets", "{\"name\":\"svc\",\"type\":\"push\"}", true).statusCode())
        .isEqualTo(201);
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute(
          "insert into outbox (id, aggregatetype, aggregateid, type, payload, incident_id,"
              + " schema_version) values (gen_random_uuid(), 'service', 'svc', 'FAILED', '{}',"
              + " gen_random_uuid(), 1)");
    }
  }

  @AfterEach
  void stop() {
    if (monitor != null) {
      monitor.close();
    }
  }

  @Test
  void theApiReplaysWithTheTokenAndSaysWhyItRefuses() throws Exception {
    assertThat(post("/api/outbox/replay", "{\"service\":\"svc\"}", false).statusCode())
        .isEqualTo(401);

    HttpResponse<String> counted =
        post("/api/outbox/replay", "{\"service\":\"svc\",\"dryRun\":true}", true);
    assertThat(counted.statusCode()).isEqualTo(200);
    JsonNode count = JSON.readTree(counted.body());
    assertThat(count.path("selected").asLong()).isEqualTo(1);
    assertThat(count.path("replayed").asLong()).isZero();
    assertThat(count.path("dryRun").asBoolean()).isTrue();

    HttpResponse<String> replayed = post("/api/outbox/replay", "{\"service\":\"svc\"}", true);
    assertThat(replayed.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(replayed.body()).path("replayed").asLong()).isEqualTo(1);
    assertThat(JSON.readTree(replayed.body()).path("chunks").asInt()).isEqualTo(1);

    assertThat(TestMonitor.send(http, monitor.httpPort(), "GET", "/metrics", null, null).body())
        .contains("vigil_monitor_outbox_replayed_events_total 1.0");

    HttpResponse<String> unknown = post("/api/outbox/replay", "{\"service\":\"nobody\"}", true);
    assertThat(unknown.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(unknown.body()).path("field").asText()).isEqualTo("service");

    HttpResponse<String> empty = post("/api/outbox/replay", "{\"fromSeq\":999999}", true);
    assertThat(empty.statusCode()).isEqualTo(422);
    assertThat(JSON.readTree(empty.body()).path("error").asText())
        .contains("no outbox row matches");

    HttpResponse<String> nothing = post("/api/outbox/replay", "{}", true);
    assertThat(nothing.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(nothing.body()).path("error").asText()).contains("at least one of");
  }

  @Test
  void theCommandReplaysWithTheMonitorsSettingsAndExitsTwoOnBadInput() {
    Settings env = new Settings(settings);
    Run done = run(env, "--service", "svc");
    assertThat(done.exit).isZero();
    assertThat(done.out).contains("replayed 1 outbox rows").contains("in 1 transactions");
    assertThat(run(env, "--service", "svc", "--dry-run").out)
        .contains("would replay 1 outbox rows");

    Run unknown = run(env, "--service", "nobody");
    assertThat(unknown.exit).isEqualTo(2);
    assertThat(unknown.err).contains("--service: unknown service nobody");
    Run badSeq = run(env, "--to-seq", "0");
    assertThat(badSeq.exit).isEqualTo(2);
    assertThat(badSeq.err).contains("--to-seq: must be 1 or more");
    assertThat(run(env, "--from", "yesterday").exit).isEqualTo(2);
    assertThat(run(env, "--bogus").exit).isEqualTo(2);
    assertThat(run(env).exit).isEqualTo(2);
  }

  private record Run(int exit, String out, String err) {}

  private static Run run(Settings env, String... args) {
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      int exit = ReplayCommand.run(args, env);
      return new Run(
          exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
  }

  private HttpResponse<String> post(String path, String body, boolean token) throws Exception {
    return TestMonitor.send(
        http, monitor.httpPort(), "POST", path, body, token ? TestMonitor.TOKEN : null);
  }
}
