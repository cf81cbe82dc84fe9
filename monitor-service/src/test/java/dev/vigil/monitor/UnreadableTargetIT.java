package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A stored target whose definition no longer reads (here: edited by hand in the database) is not
 * probed; it is reported on /health and in /api/services, and the report clears once it is fixed.
 */
@ExtendWith(VigilInfraExtension.class)
class UnreadableTargetIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newHttpClient();
  private MonitorService service;

  @AfterEach
  void stop() {
    if (service != null) {
      service.close();
    }
    http.close();
  }

  @Test
  void anUnreadableStoredTargetIsReportedOnHealthAndInTheApiAndClearsWhenFixed(TestDatabase db)
      throws Exception {
    Map<String, String> settings = TestMonitor.settings(db, null, true);
    settings.put("VIGIL_MONITOR_CLAIM_POLL_INTERVAL", "50ms");
    // An unreadable row keeps the lease of the claim that found it until that lease expires (it is
    // tried again then), so the fixed definition is probed only after it: 2 s here instead of the
    // default 30 s, which left the 30 s wait below to chance on a loaded machine.
    settings.put("VIGIL_MONITOR_LEASE", "2s");
    service = MonitorService.start(new MonitorConfig(new Settings(settings)));
    assertThat(
            TestMonitor.send(
                    http,
                    service.httpPort(),
                    "POST",
                    "/api/targets",
                    "{\"name\":\"legacy\",\"type\":\"tcp\",\"url\":\"tcp://127.0.0.1:9\"}",
                    TestMonitor.TOKEN)
                .statusCode())
        .isEqualTo(201);
    Tables.count(
        db.dataSource(),
        "with u as (update targets set accepted_status = 'not-a-status' where name = 'legacy'"
            + " returning 1) select count(*) from u");
    Tables.count(
        db.dataSource(),
        "with u as (update probe_schedule set next_due_at = now() where target = 'legacy'"
            + " returning 1) select count(*) from u");

    await("the unreadable definition is reported")
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> get("/health").at("/checks/targets/data/unreadable/0").asText().equals("legacy"));
    JsonNode health = get("/health");
    assertThat(health.at("/checks/targets/status").asText()).isEqualTo("UP");
    assertThat(health.at("/checks/targets/detail").asText()).contains("legacy");
    assertThat(get("/api/services/legacy").path("definitionError").asText())
        .contains("not-a-status");

    // Fixed: the next probe clears the report.
    Tables.count(
        db.dataSource(),
        "with u as (update targets set accepted_status = '200-299' where name = 'legacy'"
            + " returning 1) select count(*) from u");
    Tables.count(
        db.dataSource(),
        "with u as (update probe_schedule set next_due_at = now() where target = 'legacy'"
            + " returning 1) select count(*) from u");
    await("the report clears after the next probe")
        .atMost(Duration.ofSeconds(30))
        .until(() -> get("/api/services/legacy").path("definitionError").isMissingNode());
    assertThat(get("/health").at("/checks/targets/data/unreadable").isMissingNode()).isTrue();
  }

  private JsonNode get(String path) throws Exception {
    return JSON.readTree(
        TestMonitor.send(http, service.httpPort(), "GET", path, null, TestMonitor.TOKEN).body());
  }
}
