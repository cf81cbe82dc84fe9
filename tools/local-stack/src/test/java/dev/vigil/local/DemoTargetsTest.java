package dev.vigil.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class DemoTargetsTest {

  @Test
  void flappingIsUpThenDownInTwentySecondHalves() {
    Predicate<Duration> flapping = DemoTargets.SCHEDULES.get("flapping");

    assertThat(flapping.test(Duration.ofSeconds(0))).isTrue();
    assertThat(flapping.test(Duration.ofSeconds(19))).isTrue();
    assertThat(flapping.test(Duration.ofSeconds(20))).isFalse();
    assertThat(flapping.test(Duration.ofSeconds(39))).isFalse();
    assertThat(flapping.test(Duration.ofSeconds(40))).isTrue();
  }

  @Test
  void maintenanceIsDownThirtySecondsEveryTwoMinutes() {
    Predicate<Duration> maintenance = DemoTargets.SCHEDULES.get("maintenance");

    assertThat(maintenance.test(Duration.ofSeconds(59))).isTrue();
    assertThat(maintenance.test(Duration.ofSeconds(60))).isFalse();
    assertThat(maintenance.test(Duration.ofSeconds(89))).isFalse();
    assertThat(maintenance.test(Duration.ofSeconds(90))).isTrue();
    assertThat(maintenance.test(Duration.ofSeconds(180))).isFalse();
  }

  @Test
  void healthyEndpointAnswers200OverHttp() throws Exception {
    try (DemoTargets targets = DemoTargets.start(0);
        HttpClient client = HttpClient.newHttpClient()) {
      HttpResponse<String> response =
          client.send(
              HttpRequest.newBuilder(URI.create(targets.url("healthy"))).build(),
              HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("up\n");
    }
  }
}
