package dev.vigil.notifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.receiver.ReceivedRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VigilInfraExtension.class)
class DeliveryIT {

  @Test
  void receiverFailingForeverParksDeliveryAsDeadAndBlocksOnlyThatService(
      TestDatabase db, TestKafka kafka) throws Exception {
    try (TestStack stack = TestStack.start(db, kafka, Map.of())) {
      stack.receiver.faults().failWith(503, Integer.MAX_VALUE, "billing");
      AlertEvent billingDown = TestStack.failed("billing");
      AlertEvent billingUp = TestStack.recovered(billingDown);
      stack.produce(billingDown);
      stack.produce(billingUp);
      AlertEvent searchDown = TestStack.failed("search");
      stack.produce(searchDown);

      stack.awaitStatus(billingDown.eventId(), "DEAD");
      stack.awaitStatus(searchDown.eventId(), "DELIVERED");
      assertThat(
              stack.scalar(
                  "select attempts || ' ' || last_status from notifier_receipt where event_id = '"
                      + billingDown.eventId()
                      + "'"))
          .isEqualTo("5 503");
      assertThat(stack.requestsFor(billingDown.eventId())).hasSize(5);
      assertThat(stack.requestsFor(billingUp.eventId())).isEmpty();
      assertThat(stack.status(billingUp.eventId())).isEqualTo("PENDING");

      // still blocked a while later: the dead FAILED holds back billing's RECOVERED
      AlertEvent searchUp = TestStack.recovered(searchDown);
      stack.produce(searchUp);
      stack.awaitStatus(searchUp.eventId(), "DELIVERED");
      assertThat(stack.requestsFor(billingUp.eventId())).isEmpty();

      // the operator fixes the receiver and replays: same event id, attempts reset, order kept
      stack.receiver.faults().clear();
      HttpResponse<String> replay =
          admin(stack, "POST", "/admin/receipts/" + billingDown.eventId() + "/replay", "alice");
      assertThat(replay.statusCode()).isEqualTo(200);
      stack.awaitStatus(billingUp.eventId(), "DELIVERED");
      assertThat(stack.status(billingDown.eventId())).isEqualTo("DELIVERED");
      assertThat(
              stack.column(
                  "select kind from received_webhook where service = 'billing' order by seq"))
          .containsExactly("FAILED", "RECOVERED");
      assertThat(
              stack.scalar(
                  "select replayed_by from notifier_receipt where event_id = '"
                      + billingDown.eventId()
                      + "'"))
          .isEqualTo("alice");
      assertThat(
              stack.count("select count(*) from notifier_operator_action where operator = 'alice'"))
          .isEqualTo(1);
    }
  }

  @Test
  void recoveredWaitsBehindStillFailingFailedThenBothArriveInOrder(
      TestDatabase db, TestKafka kafka) {
    try (TestStack stack = TestStack.start(db, kafka, Map.of())) {
      stack.receiver.faults().failWith(503, 3, "payments");
      AlertEvent down = TestStack.failed("payments");
      AlertEvent up = TestStack.recovered(down);
      stack.produce(down);
      stack.produce(up);

      stack.awaitStatus(up.eventId(), "DELIVERED");
      assertThat(stack.notifications)
          .extracting(n -> n.event().eventId())
          .containsExactly(down.eventId(), up.eventId());
      List<ReceivedRequest> downRequests = stack.requestsFor(down.eventId());
      List<ReceivedRequest> upRequests = stack.requestsFor(up.eventId());
      assertThat(downRequests)
          .extracting(ReceivedRequest::status)
          .containsExactly(503, 503, 503, 200);
      assertThat(upRequests).extracting(ReceivedRequest::status).containsExactly(200);
      // the receiver logs a request before answering it, so the log order is the causal order:
      // RECOVERED was sent only after FAILED's 200 had been received
      List<ReceivedRequest> all = stack.receiver.requests();
      assertThat(all.indexOf(upRequests.getFirst()))
          .isGreaterThan(all.indexOf(downRequests.getLast()));
    }
  }

  @Test
  void lostAcknowledgementIsResentButStoredOnce(TestDatabase db, TestKafka kafka) {
    try (TestStack stack = TestStack.start(db, kafka, Map.of())) {
      stack.receiver.faults().dropAfterStore(1, null);
      AlertEvent down = TestStack.failed("checkout");
      stack.produce(down);

      stack.awaitStatus(down.eventId(), "DELIVERED");
      assertThat(stack.requestsFor(down.eventId()))
          .extracting(ReceivedRequest::status)
          .containsExactly(-1, 200);
      assertThat(stack.count("select count(*) from received_webhook")).isEqualTo(1);
      assertThat(stack.notifications).hasSize(1);
      assertThat(
              stack.scalar(
                  "select attempts from notifier_receipt where event_id = '"
                      + down.eventId()
                      + "'"))
          .isEqualTo("2");
    }
  }

  @Test
  void retryAfterIsHonouredBeforeTheNextAttempt(TestDatabase db, TestKafka kafka) {
    try (TestStack stack = TestStack.start(db, kafka, Map.of())) {
      stack.receiver.faults().retryAfter(2, 1, null);
      AlertEvent down = TestStack.failed("search");
      stack.produce(down);

      stack.awaitStatus(down.eventId(), "DELIVERED");
      List<ReceivedRequest> requests = stack.requestsFor(down.eventId());
      assertThat(requests).extracting(ReceivedRequest::status).containsExactly(429, 200);
      // backoff alone would retry after 10-20 ms; Retry-After: 2 holds it for 2 s
      assertThat(Duration.between(requests.get(0).arrivedAt(), requests.get(1).arrivedAt()))
          .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    }
  }

  @Test
  void redirectIsAPermanentFailureAndItsLocationIsNeverRequested(TestDatabase db, TestKafka kafka) {
    try (TestStack stack = TestStack.start(db, kafka, Map.of())) {
      String location = "http://localhost:" + stack.receiver.port() + "/elsewhere";
      stack.receiver.faults().redirect(location, 1, null);
      AlertEvent down = TestStack.failed("search");
      stack.produce(down);

      stack.awaitStatus(down.eventId(), "DEAD");
      assertThat(
              stack.scalar(
                  "select attempts || ' ' || last_status from notifier_receipt where event_id = '"
                      + down.eventId()
                      + "'"))
          .isEqualTo("1 302");
      assertThat(stack.receiver.requests())
          .extracting(ReceivedRequest::path)
          .containsExactly("/hooks/vigil");
      assertThat(stack.notifications).isEmpty();
    }
  }

  @Test
  void anUndeliverableReminderIsParkedAndDoesNotHoldBackTheRecovered(
      TestDatabase db, TestKafka kafka) throws Exception {
    try (TestStack stack = TestStack.start(db, kafka, Map.of())) {
      AlertEvent down = TestStack.failed("ledger");
      stack.produce(down);
      stack.awaitStatus(down.eventId(), "DELIVERED");

      // The receiver refuses the REMINDER for good (a 422 is permanent).
      stack.receiver.faults().failWith(422, 1, "ledger");
      AlertEvent reminder =
          AlertEvent.reminder(
              java.util.UUID.randomUUID(),
              down.incidentId(),
              "ledger",
              down.occurredAt().plusSeconds(3600),
              40,
              "connect timed out",
              down.occurredAt());
      AlertEvent up = TestStack.recovered(down);
      stack.produce(reminder);
      stack.produce(up);

      stack.awaitStatus(up.eventId(), "DELIVERED");
      assertThat(stack.status(reminder.eventId())).isEqualTo("SKIPPED");
      assertThat(
              stack.scalar(
                  "select skipped_by || ' ' || last_status from notifier_receipt"
                      + " where event_id = '"
                      + reminder.eventId()
                      + "'"))
          .isEqualTo("parked: reminder undeliverable 422");
      assertThat(stack.count("select count(*) from notifier_receipt where status = 'DEAD'"))
          .isZero();
      assertThat(stack.notifications)
          .extracting(n -> n.event().eventId())
          .containsExactly(down.eventId(), up.eventId());
    }
  }

  @Test
  void clientErrorIsDeadAtOnceAndSkipReleasesTheService(TestDatabase db, TestKafka kafka)
      throws Exception {
    try (TestStack stack = TestStack.start(db, kafka, Map.of())) {
      stack.receiver.faults().failWith(422, 1, null);
      AlertEvent down = TestStack.failed("ledger");
      AlertEvent up = TestStack.recovered(down);
      stack.produce(down);
      stack.produce(up);
      stack.awaitStatus(down.eventId(), "DEAD");
      assertThat(stack.status(up.eventId())).isEqualTo("PENDING");

      HttpResponse<String> list = admin(stack, "GET", "/admin/receipts?status=DEAD", null);
      assertThat(list.statusCode()).isEqualTo(200);
      assertThat(list.body()).contains(down.eventId().toString()).contains("HTTP 422");
      assertThat(
              admin(stack, "POST", "/admin/receipts/" + down.eventId() + "/skip", null)
                  .statusCode())
          .isEqualTo(400);
      HttpResponse<String> skip =
          admin(stack, "POST", "/admin/receipts/" + down.eventId() + "/skip", "bob");
      assertThat(skip.statusCode()).isEqualTo(200);

      stack.awaitStatus(up.eventId(), "DELIVERED");
      assertThat(stack.status(down.eventId())).isEqualTo("SKIPPED");
      assertThat(stack.notifications)
          .extracting(n -> n.event().eventId())
          .containsExactly(up.eventId());
      assertThat(
              HttpClient.newHttpClient()
                  .send(
                      HttpRequest.newBuilder(
                              URI.create(
                                  "http://localhost:"
                                      + stack.notifier.httpPort()
                                      + "/admin/services"))
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(401);
    }
  }

  @Test
  void healthAndMetricsReportTheBacklog(TestDatabase db, TestKafka kafka) throws Exception {
    try (TestStack stack = TestStack.start(db, kafka, Map.of())) {
      AlertEvent down = TestStack.failed("web");
      stack.produce(down);
      stack.awaitStatus(down.eventId(), "DELIVERED");
      HttpClient client = HttpClient.newHttpClient();
      String base = "http://localhost:" + stack.notifier.httpPort();
      // /health counts the database as down when it takes over 2 s to answer, which one probe on
      // a loaded machine may see: wait for UP, as for the metrics
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  client
                          .send(
                              HttpRequest.newBuilder(URI.create(base + "/health")).build(),
                              HttpResponse.BodyHandlers.ofString())
                          .statusCode()
                      == 200);
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(
                          client
                              .send(
                                  HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                                  HttpResponse.BodyHandlers.ofString())
                              .body())
                      .contains(
                          "vigil_notifier_attempts_total{channel=\"webhook\",outcome=\"delivered\"} 1.0")
                      .contains("vigil_notifier_pending ")
                      .contains("vigil_notifier_dead ")
                      .contains("vigil_notifier_oldest_pending_age_seconds")
                      .contains("vigil_notifier_delivery_latency_seconds_count 1")
                      .contains("vigil_notifier_conflicts_total")
                      .contains("vigil_notifier_rejected_total")
                      .contains("hikaricp_connections_active")
                      .contains("jvm_memory_used_bytes"));
    }
  }

  static HttpResponse<String> admin(TestStack stack, String method, String path, String operator)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + stack.notifier.httpPort() + path))
            .header("Authorization", "Bearer " + TestStack.ADMIN_TOKEN)
            .method(method, HttpRequest.BodyPublishers.noBody());
    if (operator != null) {
      request.header("X-Vigil-Operator", operator);
    }
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
