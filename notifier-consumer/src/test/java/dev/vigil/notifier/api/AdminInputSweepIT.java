package dev.vigil.notifier.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.harness.sweep.OpenApiSweep;
import dev.vigil.kit.db.Database;
import dev.vigil.kit.metrics.ServiceMetrics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Hostile values in every parameter of every admin route, against the real database: each answer is
 * a 400 naming the parameter, never a 500 (a NUL that reached PostgreSQL was one).
 */
@ExtendWith(VigilInfraExtension.class)
class AdminInputSweepIT {
  private static final String TOKEN = "admin-token-1";
  private static final String EVENT = "/admin/receipts/00000000-0000-0000-0000-000000000001";
  private static final Map<String, String> HOSTILE =
      new LinkedHashMap<>(OpenApiSweep.HOSTILE_PARAMETERS);

  static {
    HOSTILE.put("wrong shape", "%7B%22a%22%3A1%7D");
  }

  @Test
  void hostileQueryAndPathValuesAreRefusedNamingTheParameter(TestDatabase db) throws Exception {
    try (Database database =
            Database.open(
                new Database.Options(
                    db.jdbcUrl(),
                    db.user(),
                    db.password(),
                    2,
                    "sweep-test",
                    "classpath:db/notifier",
                    "flyway_notifier_history"));
        ServiceMetrics metrics = ServiceMetrics.create("notifier");
        HttpApi api =
            new HttpApi(0, database, metrics, TOKEN, () -> null, () -> {}, ChannelViews.none())) {
      String base = "http://127.0.0.1:" + api.port();
      for (Map.Entry<String, String> hostile : HOSTILE.entrySet()) {
        String v = hostile.getValue();
        assertRefused("GET", base + "/admin/receipts?service=" + v, "service", hostile);
        assertRefused("GET", base + "/admin/receipts?status=" + v, "status", hostile);
        assertRefused("GET", base + "/admin/receipts?channel=" + v, "channel", hostile);
        for (String action : new String[] {"replay", "skip"}) {
          assertRefused("POST", base + "/admin/receipts/" + v + "/" + action, "eventId", hostile);
          assertRefused("POST", base + EVENT + "/" + action + "?channel=" + v, "channel", hostile);
        }
      }
      // Header values: a control character or an overlong name is refused, not stored.
      for (String operator : new String[] {"a\tb", "x".repeat(101)}) {
        HttpResponse<String> response;
        try (HttpClient http = HttpClient.newHttpClient()) {
          response =
              http.send(
                  HttpRequest.newBuilder(URI.create(base + EVENT + "/skip"))
                      .header("Authorization", "Bearer " + TOKEN)
                      .header("X-Vigil-Operator", operator)
                      .POST(HttpRequest.BodyPublishers.noBody())
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
        }
        assertThat(response.statusCode()).as(operator + response.body()).isEqualTo(400);
        assertThat(new ObjectMapper().readTree(response.body()).path("field").asText())
            .isEqualTo("X-Vigil-Operator");
      }
      // The valid form still works: a service name that matches nothing is an empty list.
      HttpResponse<String> fine = send("GET", base + "/admin/receipts?service=api");
      assertThat(fine.statusCode()).isEqualTo(200);
    }
  }

  private static void assertRefused(
      String method, String url, String field, Map.Entry<String, String> hostile) throws Exception {
    HttpResponse<String> response = send(method, url);
    String what = method + " " + field + " " + hostile.getKey();
    assertThat(response.statusCode()).as(what + ": " + response.body()).isBetween(400, 499);
    // Jetty itself refuses a path with an encoded NUL or bytes that are not UTF-8 (400, HTML)
    // before any route runs; every answer from the application names the parameter.
    if (response.body().startsWith("{")) {
      JsonNode body = new ObjectMapper().readTree(response.body());
      assertThat(body.path("field").asText()).as(what).isEqualTo(field);
    }
  }

  /** A fresh client each time: the server closes the connection after a request it refuses. */
  private static HttpResponse<String> send(String method, String url) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .header("Authorization", "Bearer " + TOKEN)
            .header("X-Vigil-Operator", "sweep")
            .method(method, HttpRequest.BodyPublishers.noBody());
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
