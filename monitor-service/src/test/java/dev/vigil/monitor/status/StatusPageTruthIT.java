package dev.vigil.monitor.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.MonitorConfig;
import dev.vigil.monitor.MonitorService;
import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.alert.ProbeStatus;
import dev.vigil.monitor.alert.ResultSource;
import dev.vigil.monitor.targets.TargetSpec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the public status page says against the real database: a down service inside a maintenance
 * window is shown as in maintenance and not counted as down, and the incident list shows every
 * ongoing incident and says when it leaves any incident out.
 */
@ExtendWith(VigilInfraExtension.class)
class StatusPageTruthIT {
  private static final String TOKEN = "status-truth-token";

  private final HttpClient http = HttpClient.newHttpClient();
  private MonitorService monitor;

  @BeforeEach
  void start(TestDatabase db) {
    Map<String, String> settings = TestMonitors.settings(db, TOKEN);
    settings.put("VIGIL_MONITOR_SCHEDULER_ENABLED", "false");
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
  void aDownServiceInAMaintenanceWindowIsShownAsInMaintenanceAndNotCountedAsDown()
      throws Exception {
    down("web-1", 3);
    down("api", 3);
    // A window for the prefix web, every day, from an hour ago for four hours (UTC).
    String start =
        ZonedDateTime.now(ZoneOffset.UTC)
            .minusHours(1)
            .format(DateTimeFormatter.ofPattern("HH:mm"));
    HttpResponse<String> window =
        send(
            "POST",
            "/api/maintenance-windows",
            "{\"prefix\":\"web\",\"days\":[\"mon\",\"tue\",\"wed\",\"thu\",\"fri\",\"sat\",\"sun\"],"
                + "\"start\":\""
                + start
                + "\",\"length\":\"4h\",\"zone\":\"UTC\"}");
    assertThat(window.statusCode()).as(window.body()).isEqualTo(201);

    String page = send("GET", "/status", null).body();
    assertThat(page)
        .contains("1 service is down · 1 service is in maintenance")
        .doesNotContain("2 services are down");
    assertThat(card(page, "web-1")).contains("class=\"state maintenance\">MAINTENANCE<");
    assertThat(card(page, "api")).contains("class=\"state down\">DOWN<");
  }

  @Test
  void everyOngoingIncidentIsListedAndTheListSaysWhatItLeavesOut() throws Exception {
    for (int i = 0; i < 25; i++) {
      down("closed-" + i, 3);
      monitor.recorder().record(result("closed-" + i, ProbeStatus.UP));
    }
    for (int i = 0; i < 24; i++) {
      down("ongoing-" + i, 3);
    }
    String page = send("GET", "/status", null).body();
    String incidents = page.substring(page.indexOf("id=\"incidents-title\""));
    for (int i = 0; i < 24; i++) {
      assertThat(incidents).contains("/status/services/ongoing-" + i + "\"");
    }
    assertThat(incidents)
        .contains("Showing 24 of 49 incidents of the last 30 days (24 of 24 ongoing")
        .as("ongoing first: no closed incident fits in the list")
        .doesNotContain("/status/services/closed-");
  }

  private static String card(String page, String service) {
    Matcher m =
        Pattern.compile(
                "<li class=\"service [a-z]+\" data-service=\"" + service + "\">.*?</li>",
                Pattern.DOTALL)
            .matcher(page);
    assertThat(m.find()).as("card of " + service).isTrue();
    return m.group();
  }

  private void down(String service, int times) {
    if (monitor.targets().find(service).isEmpty()) {
      monitor.targets().add(TargetSpec.push(service));
    }
    for (int i = 0; i < times; i++) {
      monitor.recorder().record(result(service, ProbeStatus.DOWN));
    }
  }

  private static ProbeResult result(String service, ProbeStatus status) {
    return new ProbeResult(
        service,
        status,
        null,
        null,
        null,
        status == ProbeStatus.DOWN ? "connection refused" : null,
        ResultSource.PUSH,
        null);
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + monitor.httpPort() + path))
            .header("Authorization", "Bearer " + TOKEN)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
