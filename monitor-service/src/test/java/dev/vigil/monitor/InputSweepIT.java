package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.harness.sweep.MonitorApiSweep;
import dev.vigil.harness.sweep.OpenApiSweep;
import dev.vigil.kit.Settings;
import dev.vigil.kit.http.OpenApiRoute;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A sweep of hostile input over every route the OpenAPI document describes, against the real
 * database: NUL, bytes that are not UTF-8, trailing bytes after the body, duplicate keys, wrong
 * types and huge values, in every path and query parameter and in every field of every request body
 * ({@link OpenApiSweep}, shared with the fault drills' bad-input-sweep). Every answer must be a
 * 4xx, and every answer of the API names the field; never a 5xx, and nothing hostile is stored.
 */
@ExtendWith(VigilInfraExtension.class)
class InputSweepIT {
  private MonitorService service;
  private TestDatabase db;

  @BeforeEach
  void start(TestDatabase db) throws Exception {
    this.db = db;
    service =
        MonitorService.start(
            new MonitorConfig(new Settings(TestMonitor.settings(db, null, false))));
    OpenApiSweep.Sender sender = sender();
    for (String target : new String[] {MonitorApiSweep.PUSH_TARGET, MonitorApiSweep.HTTP_TARGET}) {
      assertThat(
              sender
                  .send("POST", "/api/targets", target.getBytes(StandardCharsets.UTF_8))
                  .statusCode())
          .isEqualTo(201);
    }
  }

  @AfterEach
  void stop() {
    if (service != null) {
      service.close();
    }
  }

  @Test
  void everyDocumentedRouteRefusesHostileInputWithA4xxNamingTheField() throws Exception {
    JsonNode document =
        OpenApiSweep.document(
            dev.vigil.monitor.api.HttpApi.class.getResourceAsStream(OpenApiRoute.RESOURCE));

    OpenApiSweep.Outcome outcome = MonitorApiSweep.of(document, sender()).run();

    assertThat(outcome.swept()).isEqualTo(OpenApiRoute.operations(document));
    assertThat(outcome.problems()).isEmpty();
    // Nothing hostile was stored: no NUL, no replacement character anywhere.
    assertThat(Tables.snapshot(db.dataSource()).toString())
        .doesNotContain("\u0000")
        .doesNotContain("\ufffd");
  }

  private OpenApiSweep.Sender sender() {
    return OpenApiSweep.http(
        "http://127.0.0.1:" + service.httpPort(),
        Map.of("Authorization", "Bearer " + TestMonitor.TOKEN));
  }
}
