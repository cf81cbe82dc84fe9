package dev.vigil.harness.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * The monitor API's sweep: the targets it needs first and a valid body per route with a body. Used
 * by the monitor's {@code InputSweepIT} and the fault drills' bad-input-sweep against a running
 * monitor.
 */
public final class MonitorApiSweep {
  /** A push target the sweep pushes results to ({@code POST /api/targets} before the sweep). */
  public static final String PUSH_TARGET = "{\"name\":\"sweep\",\"type\":\"push\"}";

  /** A disabled HTTP target the sweep updates ({@code POST /api/targets} before the sweep). */
  public static final String HTTP_TARGET =
      "{\"name\":\"sweep-http\",\"type\":\"http\",\"url\":\"http://127.0.0.1:9/health\","
          + "\"method\":\"GET\",\"interval\":\"10s\",\"timeout\":\"2s\",\"connectTimeout\":\"1s\","
          + "\"acceptedStatus\":\"200-299\",\"failureThreshold\":3,\"recoveryThreshold\":1,"
          + "\"followRedirects\":false,\"enabled\":false,\"maxLatency\":\"800ms\","
          + "\"bodyContains\":\"ok\",\"remindEvery\":\"30m\",\"dependsOn\":[\"sweep\"],"
          + "\"dependencySettle\":\"5s\"}";

  /**
   * Fields where a huge value is not refused by design: a pushed error is cut to the contract's 500
   * characters (a checker's long stack trace still records the DOWN).
   */
  public static final Set<String> CUT_NOT_REFUSED = Set.of("error");

  private MonitorApiSweep() {}

  /** The sweep of {@code document} (the monitor's {@code /openapi.yaml}) through {@code sender}. */
  public static OpenApiSweep of(JsonNode document, OpenApiSweep.Sender sender) {
    return new OpenApiSweep(
        document, sender, baselines(), MonitorApiSweep::validPathValue, CUT_NOT_REFUSED);
  }

  /** A valid body per route with a body; a silence ends a day from now. */
  static Map<String, String> baselines() {
    String until = Instant.now().plus(Duration.ofDays(1)).toString();
    return Map.of(
        "POST /api/services/{name}/results",
        "{\"status\":\"DOWN\",\"error\":\"exit 1\",\"startedAt\":\"2026-01-01T00:00:00Z\","
            + "\"latencyMs\":12,\"httpStatus\":500}",
        "POST /api/incidents/{id}/acknowledge",
        "{\"who\":\"alice\"}",
        "POST /api/silences",
        "{\"service\":\"sweep\",\"who\":\"alice\",\"why\":\"deploy\",\"until\":\"" + until + "\"}",
        "POST /api/maintenance-windows",
        "{\"prefix\":\"sweep\",\"days\":[\"mon\"],\"start\":\"02:00\",\"length\":\"1h\","
            + "\"zone\":\"UTC\"}",
        "POST /api/targets",
        HTTP_TARGET.replace("sweep-http", "sweep-new"),
        "PUT /api/targets/{name}",
        HTTP_TARGET,
        // Valid; a dry run writes nothing (422 when nothing matches, 200 with the count).
        "POST /api/outbox/replay",
        "{\"service\":\"sweep\",\"fromSeq\":1,\"toSeq\":5,\"from\":\"2026-01-01T00:00:00Z\","
            + "\"to\":\""
            + until
            + "\",\"dryRun\":true}");
  }

  private static String validPathValue(String path, String parameter) {
    return switch (parameter) {
      case "name" -> path.startsWith("/api/targets") ? "sweep-http" : "sweep";
      case "id" -> "00000000-0000-0000-0000-000000000001";
      case "file" -> "status.css";
      default -> parameter;
    };
  }
}
