package dev.vigil.notifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.TestPostgres;
import dev.vigil.harness.junit.VigilInfraExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VigilInfraExtension.class)
class OutageIT {

  @Test
  void recordsConsumedWhilePostgresIsDownAreStoredAndDeliveredAfterItReturns(
      TestPostgres pg, TestKafka kafka) throws Exception {
    TestDatabase db = pg.newDatabase();
    try (TestStack stack = TestStack.start(db, kafka, Map.of())) {
      AlertEvent before = TestStack.failed("dns");
      stack.produce(before);
      stack.awaitStatus(before.eventId(), "DELIVERED");

      pg.stop();
      AlertEvent during = TestStack.recovered(before);
      AlertEvent other = TestStack.failed("mail");
      try {
        stack.produce(during);
        stack.produce(other);
        // /health bounds its database check at 2 s, well inside the client's 15 s, so every
        // poll gets an answer. Wait until the intake itself failed to store a batch (not only the
        // database check): the records above were consumed while PostgreSQL was down.
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> health(stack).contains("\"intake\":{\"status\":\"DOWN\""));
      } finally {
        pg.start();
      }

      stack.awaitStatus(during.eventId(), "DELIVERED");
      stack.awaitStatus(other.eventId(), "DELIVERED");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> health(stack).contains("\"status\":\"UP\""));
      assertThat(stack.notifications)
          .extracting(n -> n.event().eventId())
          .containsExactlyInAnyOrder(before.eventId(), during.eventId(), other.eventId());
      assertThat(stack.count("select count(*) from notifier_receipt")).isEqualTo(3);
    }
  }

  /** The /health body: {@code status} and the checks {@code database} and {@code intake}. */
  private static String health(TestStack stack) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://localhost:" + stack.notifier.httpPort() + "/health"))
                .timeout(Duration.ofSeconds(15))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
