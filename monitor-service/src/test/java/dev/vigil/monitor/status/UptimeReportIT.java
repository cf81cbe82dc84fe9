package dev.vigil.monitor.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The uptime API against the real database: it agrees with the status page and with counts done by
 * hand here, counts maintenance apart, reads a year back from the daily rollup, answers CSV that a
 * CSV parser reads, and refuses hostile parameters with a 400. History is inserted at fixed
 * timestamps on whole days in the past, so no assertion depends on the clock hour the test runs in.
 */
@ExtendWith(VigilInfraExtension.class)
class UptimeReportIT {
  private static final String TOKEN = "uptime-token";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final HttpClient http = HttpClient.newHttpClient();
  private MonitorService monitor;
  private Instant day;

  @BeforeEach
  void start(TestDatabase db) throws Exception {
    Path targets = dir.resolve("targets.yaml");
    Files.writeString(
        targets,
        """
        targets:
          - {name: shop, type: push, slo: 80%, sloWindow: 7d}
          - {name: plain, type: push}
        """);
    Map<String, String> settings = TestMonitors.settings(db, TOKEN);
    settings.put("VIGIL_MONITOR_SCHEDULER_ENABLED", "false");
    settings.put("VIGIL_MONITOR_TARGETS_FILE", targets.toString());
    settings.put("VIGIL_MONITOR_STATUS_ROLLUP_INTERVAL", "1h");
    monitor = MonitorService.start(new MonitorConfig(new Settings(settings)));
    // Midnight UTC three days ago: inside every window but 24 h, far from the current hour.
    day = databaseNow().truncatedTo(ChronoUnit.DAYS).minus(Duration.ofDays(3));
  }

  @AfterEach
  void stop() {
    if (monitor != null) {
      monitor.close();
    }
    http.close();
  }

  @Test
  void uptimeAgreesWithTheStatusPageAndWithCountsDoneByHand() throws Exception {
    // Day one: 01:00 50 UP; 02:00 30 UP and 10 DOWN; 03:00 5 UP and 5 DOWN in maintenance.
    // Day two: 10:00 15 UP and 5 DOWN, and 4 DOWN in maintenance.
    history("shop", day.plus(Duration.ofMinutes(70)), 50, 0, false);
    history("shop", day.plus(Duration.ofMinutes(130)), 30, 10, false);
    history("shop", day.plus(Duration.ofMinutes(190)), 5, 5, true);
    Instant dayTwo = day.plus(Duration.ofDays(1));
    history("shop", dayTwo.plus(Duration.ofMinutes(610)), 15, 5, false);
    history("shop", dayTwo.plus(Duration.ofMinutes(620)), 0, 4, true);
    String first = incident("shop", day.plus(Duration.ofMinutes(130)), Duration.ofMinutes(40));
    String second = incident("shop", dayTwo.plus(Duration.ofMinutes(600)), Duration.ofMinutes(30));
    new UptimeRollup(monitor.dataSource(), Duration.ofHours(1)).runOnce();

    JsonNode report =
        JSON.readTree(
            get(
                    "/api/services/shop/uptime?from="
                        + day.minus(Duration.ofDays(1))
                        + "&to="
                        + day.plus(Duration.ofDays(2))
                        + "&step=1d",
                    null)
                .body());

    assertThat(report.path("resolution").asText()).isEqualTo("hour");
    JsonNode steps = report.path("steps");
    assertThat(steps).hasSize(3);
    assertThat(steps.get(0).path("up").asLong()).isZero();
    assertThat(steps.get(0).path("uptimePercent").isNull()).isTrue();
    JsonNode one = steps.get(1);
    assertThat(one.path("from").asText()).isEqualTo(day.toString());
    assertThat(
            List.of(
                one.path("up").asLong(),
                one.path("down").asLong(),
                one.path("maintenance").asLong()))
        .containsExactly(80L, 10L, 10L);
    // 80 of 90 counted checks; 10 of the day's 100 checks DOWN: a tenth of 86,400 s.
    assertThat(one.path("uptimePercent").asDouble()).isEqualTo(88.8888);
    assertThat(one.path("downtimeSeconds").asLong()).isEqualTo(8_640);
    assertThat(one.path("incidentSeconds").asLong()).isEqualTo(2_400);
    assertThat(one.path("incidents").findValuesAsText("id")).containsExactly(first);
    JsonNode two = steps.get(2);
    assertThat(
            List.of(
                two.path("up").asLong(),
                two.path("down").asLong(),
                two.path("maintenance").asLong()))
        .containsExactly(15L, 5L, 4L);
    assertThat(two.path("uptimePercent").asDouble()).isEqualTo(75.0);
    assertThat(two.path("downtimeSeconds").asLong()).isEqualTo(86_400L * 5 / 24);
    assertThat(two.path("incidents").findValuesAsText("id")).containsExactly(second);
    JsonNode total = report.path("total");
    assertThat(
            List.of(
                total.path("up").asLong(),
                total.path("down").asLong(),
                total.path("maintenance").asLong()))
        .containsExactly(95L, 15L, 14L);
    // 95 of 110: 86.3636...%, which the status page floors to 86.36% for 7 and 30 days.
    assertThat(total.path("uptimePercent").asDouble()).isEqualTo(86.3636);

    String page = get("/status/services/shop", null).body();
    assertThat(page).contains("<dt>7 d</dt><dd class=\"bad\">86.36%</dd>");
    assertThat(page).contains("<dt>30 d</dt><dd class=\"bad\">86.36%</dd>");
    // SLO 80% over 7 days: a budget of 20% of 10,080 min = 2016 min; 15/110 DOWN spends 68.18%.
    assertThat(page)
        .contains("80% over 7 days")
        .contains("<dt>Attained</dt><dd class=\"good\">86.36%</dd>")
        .contains("31.8% · 641.4 min of 2016.0 min");
    assertThat(get("/status/services/plain", null).body()).doesNotContain("id=\"slo\"");

    // The same range by hour: the buckets of the hand-counted hours, nothing elsewhere.
    JsonNode hourly =
        JSON.readTree(
            get(
                    "/api/services/shop/uptime?from="
                        + day
                        + "&to="
                        + day.plus(Duration.ofHours(4))
                        + "&step=1h",
                    null)
                .body());
    assertThat(hourly.path("steps").findValuesAsText("up")).containsExactly("0", "50", "30", "0");
    assertThat(hourly.path("steps").get(3).path("uptimePercent").isNull()).isTrue();
    assertThat(hourly.path("steps").get(3).path("maintenance").asLong()).isEqualTo(10);
  }

  @Test
  void csvHasAHeaderAndOneParsableRowPerStep() throws Exception {
    history("shop", day.plus(Duration.ofMinutes(70)), 3, 1, false);
    String a = incident("shop", day.plus(Duration.ofMinutes(65)), Duration.ofMinutes(5));
    String b = incident("shop", day.plus(Duration.ofMinutes(200)), Duration.ofMinutes(5));
    new UptimeRollup(monitor.dataSource(), Duration.ofHours(1)).runOnce();

    HttpResponse<String> csv =
        get(
            "/api/services/shop/uptime?from=" + day + "&to=" + day.plus(Duration.ofDays(2)),
            "text/csv");

    assertThat(csv.statusCode()).isEqualTo(200);
    assertThat(csv.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/csv");
    List<Map<String, String>> rows;
    try (MappingIterator<Map<String, String>> read =
        new CsvMapper()
            .readerForMapOf(String.class)
            .with(CsvSchema.emptySchema().withHeader())
            .readValues(csv.body())) {
      rows = read.readAll();
    }
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0))
        .containsEntry("from", day.toString())
        .containsEntry("up", "3")
        .containsEntry("down", "1")
        .containsEntry("maintenance", "0")
        .containsEntry("uptime_percent", "75.0")
        .containsEntry("downtime_seconds", "21600")
        .containsEntry("incidents", a + " " + b);
    assertThat(rows.get(1)).containsEntry("uptime_percent", "").containsEntry("incidents", "");
  }

  @Test
  void aYearOfDailyUptimeOutlivesTrimmedHistoryAndHourlyBuckets() throws Exception {
    // The daily rollup of a day 300 days ago, as the rollup wrote it before its hours were trimmed.
    Instant old = day.minus(Duration.ofDays(297));
    Tables.execute(
        monitor.dataSource(),
        "insert into uptime_daily (service, day, up_count, down_count, maintenance_count)"
            + " values ('shop', (timestamptz '"
            + old
            + "' at time zone 'UTC')::date, 99, 1, 7)");
    history("shop", day.plus(Duration.ofMinutes(70)), 8, 2, false);
    new UptimeRollup(monitor.dataSource(), Duration.ofHours(1)).runOnce();

    assertThat(
            Tables.count(
                monitor.dataSource(),
                "select up_count from uptime_daily where service = 'shop' and day = "
                    + "(timestamptz '"
                    + day
                    + "' at time zone 'UTC')::date"))
        .isEqualTo(8);
    JsonNode year =
        JSON.readTree(get("/api/services/shop/uptime?from=" + old + "&step=7d", null).body());
    assertThat(year.path("resolution").asText()).isEqualTo("day");
    assertThat(year.path("steps").get(0).path("up").asLong()).isEqualTo(99);
    assertThat(year.path("steps").get(0).path("maintenance").asLong()).isEqualTo(7);
    assertThat(year.path("total").path("up").asLong()).isEqualTo(107);
    assertThat(year.path("total").path("down").asLong()).isEqualTo(3);

    // A day older than 400 days is trimmed by the next run.
    Tables.execute(
        monitor.dataSource(),
        "insert into uptime_daily (service, day, up_count, down_count, maintenance_count)"
            + " values ('shop', current_date - 401, 1, 0, 0)");
    new UptimeRollup(monitor.dataSource(), Duration.ofHours(1)).runOnce();
    assertThat(
            Tables.count(
                monitor.dataSource(),
                "select count(*) from uptime_daily where day < current_date - 400"))
        .isZero();
  }

  @Test
  void checksRecordedWhileSilencedAreMaintenanceAndCountApart() throws Exception {
    push("UP");
    Tables.execute(
        monitor.dataSource(),
        "insert into silences (id, service, created_by, reason, ends_at) values ('"
            + UUID.randomUUID()
            + "', 'shop', 'ops', 'deploy', now() + interval '1 hour')");
    push("DOWN");
    push("UP");
    Tables.execute(monitor.dataSource(), "delete from silences");
    push("UP");

    assertThat(
            Tables.count(
                monitor.dataSource(),
                "select count(*) from check_history where service = 'shop' and maintenance"))
        .isEqualTo(2);
    // The history API says which checks were taken in maintenance (newest first).
    JsonNode items = JSON.readTree(get("/api/services/shop/history", null).body()).path("items");
    assertThat(items.findValuesAsText("maintenance"))
        .containsExactly("false", "true", "true", "false");
    new UptimeRollup(monitor.dataSource(), Duration.ofHours(1)).runOnce();
    JsonNode report =
        JSON.readTree(get("/api/services/shop/uptime?from=" + day + "&step=1d", null).body());
    assertThat(report.path("total").path("up").asLong()).isEqualTo(2);
    assertThat(report.path("total").path("down").asLong()).isZero();
    assertThat(report.path("total").path("maintenance").asLong()).isEqualTo(2);
    assertThat(report.path("total").path("uptimePercent").asDouble()).isEqualTo(100.0);
  }

  @Test
  void badParametersAre400sNamingTheParameterAndAnUnknownServiceIs404() throws Exception {
    assertBadRequest("?from=2026-12-06T00:00:00Z&to=2026-12-05T00:00:00Z", "from");
    assertBadRequest("?step=30m&from=" + day, "step");
    assertBadRequest("?step=6h&from=" + day.minus(Duration.ofDays(60)), "step");
    assertBadRequest("?from=" + day.minus(Duration.ofDays(500)), "from");
    assertBadRequest("?step=1d&step=1d", "step");
    assertBadRequest("?step=1d%00", "step");
    assertBadRequest("?from=%C3%28", "from");
    assertBadRequest("?step=99999999999999999999999999d", "step");
    assertBadRequest("?from=+999999999-12-31T23:59:59Z", "from");
    // Invalid percent-encoding cannot be sent through java.net.URI: sent as raw bytes.
    assertThat(rawStatusLine("/api/services/shop/uptime?to=%zz")).contains(" 400 ");
    assertThat(rawStatusLine("/api/services/shop/uptime?step=1d%")).contains(" 400 ");
    assertThat(get("/api/services/nobody/uptime", null).statusCode()).isEqualTo(404);
    assertThat(get("/api/services/shop/uptime", null).statusCode()).isEqualTo(200);
  }

  private void assertBadRequest(String query, String field) throws Exception {
    HttpResponse<String> response = get("/api/services/shop/uptime" + query, null);
    assertThat(response.statusCode()).as(query).isEqualTo(400);
    assertThat(JSON.readTree(response.body()).path("field").asText()).as(query).isEqualTo(field);
  }

  private String rawStatusLine(String target) throws Exception {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", monitor.httpPort())) {
      socket
          .getOutputStream()
          .write(
              ("GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                  .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      return new java.io.BufferedReader(
              new java.io.InputStreamReader(
                  socket.getInputStream(), java.nio.charset.StandardCharsets.US_ASCII))
          .readLine();
    }
  }

  /** {@code up} UP then {@code down} DOWN checks of {@code service}, all recorded {@code at}. */
  private void history(String service, Instant at, int up, int down, boolean maintenance)
      throws Exception {
    try (Connection connection = monitor.dataSource().getConnection();
        PreparedStatement insert =
            connection.prepareStatement(
                """
                insert into check_history
                       (service, status, started_at, recorded_at, source, maintenance)
                select ?, case when n <= ? then 'UP' else 'DOWN' end, ?, ?, 'push', ?
                  from generate_series(1, ?) n
                """)) {
      insert.setString(1, service);
      insert.setInt(2, up);
      insert.setTimestamp(3, Timestamp.from(at));
      insert.setTimestamp(4, Timestamp.from(at));
      insert.setBoolean(5, maintenance);
      insert.setInt(6, up + down);
      insert.executeUpdate();
    }
  }

  /** A closed incident of {@code service} open from {@code at} for {@code length}; its id. */
  private String incident(String service, Instant at, Duration length) throws Exception {
    String id = UUID.randomUUID().toString();
    try (Connection connection = monitor.dataSource().getConnection();
        PreparedStatement insert =
            connection.prepareStatement(
                """
                insert into incidents (id, service, opened_at, closed_at, first_error, last_error,
                                       probe_count, announced_at, last_announced_at)
                values (?::uuid, ?, ?, ?, 'down', 'down', 3, ?, ?)
                """)) {
      insert.setString(1, id);
      insert.setString(2, service);
      insert.setTimestamp(3, Timestamp.from(at));
      insert.setTimestamp(4, Timestamp.from(at.plus(length)));
      insert.setTimestamp(5, Timestamp.from(at));
      insert.setTimestamp(6, Timestamp.from(at));
      insert.executeUpdate();
    }
    return id;
  }

  private void push(String status) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(uri("/api/services/shop/results"))
                .header("Authorization", "Bearer " + TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString("{\"status\":\"" + status + "\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }

  private Instant databaseNow() throws Exception {
    try (Connection connection = monitor.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("select now()")) {
      rs.next();
      return rs.getTimestamp(1).toInstant();
    }
  }

  private HttpResponse<String> get(String path, String accept) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path));
    if (accept != null) {
      request.header("Accept", accept);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + monitor.httpPort() + path);
  }
}
