package dev.vigil.monitor.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.MonitorConfig;
import dev.vigil.monitor.MonitorService;
import dev.vigil.monitor.Tables;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page over HTTP against the real database, with {@code
 * VIGIL_MONITOR_STATUS_PAGE=token}: uptime windows from the hourly rollup, badges and their
 * caching, access, and hostile paths.
 */
@ExtendWith(VigilInfraExtension.class)
class StatusPageIT {
  private static final String TOKEN = "status-page-token";
  private static final String BEARER = "Bearer " + TOKEN;

  @TempDir Path dir;
  private final HttpClient http = HttpClient.newHttpClient();
  private MonitorService monitor;

  @BeforeEach
  void start(TestDatabase db) throws Exception {
    Path targets = dir.resolve("targets.yaml");
    Files.writeString(targets, "targets:\n  - name: batch\n    type: push\n");
    Map<String, String> settings = TestMonitors.settings(db, TOKEN);
    settings.put("VIGIL_MONITOR_SCHEDULER_ENABLED", "false");
    settings.put("VIGIL_MONITOR_TARGETS_FILE", targets.toString());
    settings.put("VIGIL_MONITOR_STATUS_PAGE", "token");
    settings.put("VIGIL_MONITOR_STATUS_ROLLUP_INTERVAL", "1h");
    monitor = MonitorService.start(new MonitorConfig(new Settings(settings)));
  }

  @AfterEach
  void stop() {
    if (monitor != null) {
      monitor.close();
    }
    http.close();
  }

  @Test
  void uptimeWindowsCountTheChecksOfTheirHoursAndSurviveTrimmedHistory() throws Exception {
    // 24 h: 90 of 100 UP; 7 d adds 100 DOWN three days ago; 30 d adds 100 UP twenty days ago;
    // forty days ago is outside every window.
    history(2, 90, 10);
    history(72, 0, 100);
    history(480, 100, 0);
    history(960, 0, 100);
    new UptimeRollup(monitor.dataSource(), Duration.ofHours(1)).runOnce();
    assertThat(uptimeBadge("24h")).contains("uptime 24h: 90.00%");
    assertThat(uptimeBadge("7d")).contains("uptime 7d: 45.00%");
    assertThat(uptimeBadge("30d")).contains("uptime 30d: 63.33%");
    assertThat(get("/status", BEARER).body()).contains("90.00%", "45.00%", "63.33%");

    // Retention trims half of the 20-day-old hour; a new instance's first run recomputes it and
    // must not shrink its bucket, nor keep buckets older than 31 days.
    Tables.execute(
        monitor.dataSource(),
        "delete from check_history where recorded_at < now() - interval '400 hours'"
            + " and recorded_at > now() - interval '500 hours' and status = 'UP'"
            + " and id % 2 = 0");
    assertThat(new UptimeRollup(monitor.dataSource(), Duration.ofHours(1)).runOnce()).isZero();
    assertThat(uptimeBadge("30d")).contains("uptime 30d: 63.33%");
    assertThat(
            Tables.count(
                monitor.dataSource(),
                "select count(*) from status_hourly where hour < now() - interval '31 days'"))
        .isZero();
  }

  @Test
  void laterChecksGrowTheCurrentHourOnTheNextRun() throws Exception {
    UptimeRollup rollup = new UptimeRollup(monitor.dataSource(), Duration.ofHours(1));
    history(0, 3, 1);
    rollup.runOnce();
    assertThat(uptimeBadge("24h")).contains("75.00%");
    history(0, 4, 0);
    rollup.runOnce();
    assertThat(uptimeBadge("24h")).contains("87.50%");
  }

  @Test
  void tokenModeAsksForTheTokenAndTakesItAsBearerOrBasicPassword() throws Exception {
    HttpResponse<String> anonymous = get("/status", null);
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValue(StatusAccess.CHALLENGE);
    assertThat(get("/status", "Bearer wrong-token").statusCode()).isEqualTo(401);
    assertThat(get("/status", basic("anyone:wrong")).statusCode()).isEqualTo(401);
    assertThat(get("/status", "Basic !!!not-base64").statusCode()).isEqualTo(401);
    assertThat(get("/status", basic("no-colon-" + TOKEN)).statusCode()).isEqualTo(401);
    assertThat(get("/status/badges/batch/state.svg", null).statusCode()).isEqualTo(401);
    assertThat(get("/status/assets/status.css", null).statusCode()).isEqualTo(401);

    HttpResponse<String> page = get("/status", basic("ops:" + TOKEN));
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/html");
    assertThat(page.headers().firstValue("Content-Security-Policy"))
        .hasValueSatisfying(policy -> assertThat(policy).contains("script-src 'self'"));
    assertThat(page.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
    assertThat(page.body()).contains("data-service=\"batch\"");
    assertThat(get("/status", BEARER).statusCode()).isEqualTo(200);
    assertThat(get("/status?fragment=1", BEARER).body())
        .contains("data-service=\"batch\"")
        .doesNotContain("<html");
  }

  @Test
  void badgesAreSvgWithCacheHeadersAndAnswerNotModified() throws Exception {
    HttpResponse<String> badge = get("/status/badges/batch/state.svg", BEARER);
    assertThat(badge.statusCode()).isEqualTo(200);
    assertThat(badge.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("image/svg+xml");
    assertThat(badge.headers().firstValue("Cache-Control")).hasValue("private, max-age=60");
    assertThat(badge.body()).startsWith("<svg").contains("batch: unknown");
    String etag = badge.headers().firstValue("ETag").orElseThrow();
    HttpResponse<String> again =
        http.send(
            request("/status/badges/batch/state.svg", BEARER).header("If-None-Match", etag).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(again.statusCode()).isEqualTo(304);
    assertThat(again.body()).isEmpty();

    assertThat(get("/status/badges/nobody/state.svg", BEARER).statusCode()).isEqualTo(404);
    assertThat(get("/status/badges/batch/uptime.svg?window=1y", BEARER).statusCode())
        .isEqualTo(400);
    HttpResponse<String> hostile = get("/status/badges/%3Cscript%3E/state.svg", BEARER);
    assertThat(hostile.statusCode()).isEqualTo(400);
    assertThat(hostile.body()).doesNotContain("<script>");
  }

  @Test
  void hostilePathsAreRefusedAsEscapedText() throws Exception {
    HttpResponse<String> invalid =
        get("/status/services/%3Cscript%3Ealert(1)%3C%2Fscript%3E%22", BEARER);
    assertThat(invalid.statusCode()).isEqualTo(400);
    assertThat(invalid.body()).doesNotContain("<script>alert").contains("&lt;script&gt;");
    assertThat(get("/status/services/nobody", BEARER).statusCode()).isEqualTo(404);
    assertThat(get("/status/services/%00", BEARER).statusCode()).isEqualTo(400);
    assertThat(get("/status/services/" + "a".repeat(300), BEARER).statusCode()).isEqualTo(400);
    assertThat(get("/status/services/" + "a".repeat(100_000), BEARER).statusCode())
        .isEqualTo(414); // Jetty refuses the request line before any handler
    assertThat(get("/status/assets/page.mustache", BEARER).statusCode()).isEqualTo(404);
    HttpResponse<String> traversal =
        get("/status/assets/..%2F..%2Fdb%2Fmonitor%2FV1__outbox.sql", BEARER);
    assertThat(traversal.statusCode()).isIn(400, 404); // Jetty itself refuses encoded slashes
    assertThat(traversal.body()).doesNotContain("create table");
    assertThat(get("/status/assets/status.js", BEARER).headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("text/javascript"));
  }

  /** {@code up} UP and {@code down} DOWN checks of batch, {@code hoursAgo} hours ago. */
  private void history(int hoursAgo, int up, int down) throws Exception {
    try (Connection connection = monitor.dataSource().getConnection();
        PreparedStatement insert =
            connection.prepareStatement(
                """
                insert into check_history (service, status, started_at, recorded_at, source)
                select 'batch', case when n <= ? then 'UP' else 'DOWN' end,
                       now() - ? * interval '1 hour', now() - ? * interval '1 hour', 'push'
                  from generate_series(1, ?) n
                """)) {
      insert.setInt(1, up);
      insert.setInt(2, hoursAgo);
      insert.setInt(3, hoursAgo);
      insert.setInt(4, up + down);
      insert.executeUpdate();
    }
  }

  private String uptimeBadge(String window) throws Exception {
    HttpResponse<String> badge = get("/status/badges/batch/uptime.svg?window=" + window, BEARER);
    assertThat(badge.statusCode()).isEqualTo(200);
    return badge.body();
  }

  private HttpResponse<String> get(String path, String authorization) throws Exception {
    return http.send(request(path, authorization).build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest.Builder request(String path, String authorization) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + monitor.httpPort() + path));
    return authorization == null ? builder : builder.header("Authorization", authorization);
  }

  private static String basic(String pair) {
    return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
  }
}
