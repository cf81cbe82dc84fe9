package dev.vigil.notifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.harness.vendor.FakeVendor;
import dev.vigil.harness.vendor.PagerDutyContract;
import dev.vigil.harness.vendor.SlackContract;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Routes fan out: one event, several channels, each its own delivery with its own retries and
 * order. The PagerDuty and Slack ends are fakes that check every request against the documented
 * fields ({@link PagerDutyContract}, {@link SlackContract}).
 */
@ExtendWith(VigilInfraExtension.class)
class ChannelsIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String PD_ACCEPTED =
      "{\"status\":\"success\",\"message\":\"Event processed\"}";

  private static Map<String, String> routes(FakeVendor pd, FakeVendor slack) {
    return Map.of(
        "VIGIL_NOTIFIER_ROUTES",
        """
        channels:
          oncall: {type: pagerduty, url: "%s", routingKey: env:TEST_PD_KEY, group: off}
          team: {type: slack, url: "%s", group: off}
        routes:
          - {match: pay*, channels: [oncall, team, webhook]}
        """
            .formatted(pd.url("/v2/enqueue"), slack.url("/services/T0/B0/secret")),
        "TEST_PD_KEY",
        "pd-routing-key-0000000000000000",
        "VIGIL_NOTIFIER_PUBLIC_URL",
        "https://vigil.example.com",
        // Slack fails until the test fixes it: its retries must not run out first. 100 attempts
        // at up to 1 s apart last about a minute, longer than the checks in between take on a
        // loaded machine (at the stack's 100 ms they ran out after about 9 s).
        "VIGIL_NOTIFIER_MAX_ATTEMPTS",
        "100",
        "VIGIL_NOTIFIER_BACKOFF_MAX",
        "1s");
  }

  @Test
  void aFailingSlackDelaysOnlyItsOwnDeliveriesWhilePagerDutyAndTheWebhookFlow(
      TestDatabase db, TestKafka kafka) throws Exception {
    try (FakeVendor pd = new FakeVendor(PagerDutyContract::violations, 202, PD_ACCEPTED);
        FakeVendor slack = new FakeVendor(SlackContract::violations, 503, "");
        TestStack stack = TestStack.start(db, kafka, routes(pd, slack))) {
      AlertEvent down = TestStack.failed("payments");
      AlertEvent still =
          AlertEvent.reminder(
              UUID.randomUUID(),
              down.incidentId(),
              "payments",
              down.occurredAt().plusSeconds(600),
              20,
              "<!here> & bye",
              down.occurredAt());
      AlertEvent up = TestStack.recovered(down);
      AlertEvent other = TestStack.failed("search");
      for (AlertEvent event : List.of(down, still, up, other)) {
        stack.produce(event);
      }

      // PagerDuty and the webhook finish while Slack answers 503 on every attempt
      await()
          .atMost(WAIT)
          .until(
              () ->
                  stack.status(up, "oncall").equals("DELIVERED")
                      && stack.status(up, "webhook").equals("DELIVERED")
                      && stack.status(other, "webhook").equals("DELIVERED"));
      assertThat(stack.status(down, "oncall")).isEqualTo("DELIVERED");
      assertThat(stack.status(still, "oncall")).isEqualTo("SKIPPED");
      assertThat(
              stack.count(
                  "select count(*) from notifier_receipt where event_id = '"
                      + other.eventId()
                      + "'"))
          .as("search has no route: the webhook only")
          .isEqualTo(1);
      assertThat(pd.received())
          .extracting(r -> r.body().get("event_action").asText())
          .containsExactly("trigger", "resolve");
      assertThat(pd.received())
          .allSatisfy(
              r ->
                  assertThat(r.body().get("dedup_key").asText())
                      .isEqualTo(down.incidentId().toString()));
      assertThat(pd.violations()).isEmpty();
      // Slack's retries come at most once a second (its rate limit), each one counted
      await().atMost(WAIT).until(() -> stack.attempts(down, "team") > 1);
      assertThat(stack.status(down, "team")).isEqualTo("PENDING");
      assertThat(stack.attempts(up, "team")).as("held back behind its FAILED").isZero();
      assertThat(slack.received())
          .allSatisfy(
              r -> assertThat(r.body().get("text").asText()).contains("*payments* is DOWN"));
      assertThat(NotifierHttp.get(stack.notifier, "/metrics", null))
          .containsPattern(
              "vigil_notifier_attempts_total\\{channel=\"team\",outcome=\"retry\"} [1-9]")
          .contains("vigil_notifier_attempts_total{channel=\"oncall\",outcome=\"not_sent\"} 1.0");
      assertThat(NotifierHttp.get(stack.notifier, "/admin/services", TestStack.ADMIN_TOKEN))
          .contains("\"service\":\"payments\",\"channel\":\"team\",\"pending\":3");

      slack.answer(200, "ok");
      await().atMost(WAIT).until(() -> stack.status(up, "team").equals("DELIVERED"));
      assertThat(slack.violations()).isEmpty();
      List<String> texts =
          slack.received().stream().map(r -> r.body().get("text").asText()).distinct().toList();
      assertThat(texts).hasSize(3);
      assertThat(texts.get(0)).contains("is DOWN since");
      assertThat(texts.get(1)).contains("still DOWN: 10m 0s").contains("&lt;!here&gt; &amp; bye");
      assertThat(texts.get(2)).contains("RECOVERED").contains(down.incidentId().toString());
      assertThat(stack.notifications)
          .extracting(n -> n.event().eventId())
          .containsExactlyInAnyOrder(
              down.eventId(), still.eventId(), up.eventId(), other.eventId());
    }
  }

  @Test
  void pagerDutyRefusingAnEventIsDeadWithItsErrorsAndBlocksOnlyPagerDuty(
      TestDatabase db, TestKafka kafka) throws Exception {
    try (FakeVendor pd =
            new FakeVendor(
                PagerDutyContract::violations,
                400,
                "{\"status\":\"invalid event\",\"message\":\"Event object is invalid\","
                    + "\"errors\":[\"Length of 'routing_key' is incorrect\"]}");
        FakeVendor slack = new FakeVendor(SlackContract::violations, 200, "ok");
        TestStack stack = TestStack.start(db, kafka, routes(pd, slack))) {
      AlertEvent down = TestStack.failed("payments");
      AlertEvent up = TestStack.recovered(down);
      stack.produce(down);
      stack.produce(up);

      await()
          .atMost(WAIT)
          .until(
              () ->
                  stack.status(up, "team").equals("DELIVERED")
                      && stack.status(up, "webhook").equals("DELIVERED")
                      && stack.status(down, "oncall").equals("DEAD"));
      assertThat(pd.received()).hasSize(1);
      assertThat(
              stack.scalar(
                  "select last_status || ' ' || last_error from notifier_receipt where event_id = '"
                      + down.eventId()
                      + "' and channel = 'oncall'"))
          .startsWith("400 HTTP 400")
          .contains("Length of 'routing_key' is incorrect");
      assertThat(stack.status(up, "oncall")).isEqualTo("PENDING");
      assertThat(
              NotifierHttp.get(
                  stack.notifier,
                  "/admin/receipts?status=DEAD&channel=oncall",
                  TestStack.ADMIN_TOKEN))
          .contains(down.eventId().toString());
      assertThat(
              NotifierHttp.get(
                  stack.notifier,
                  "/admin/receipts?status=DEAD&channel=team",
                  TestStack.ADMIN_TOKEN))
          .isEqualTo("[]");
    }
  }

  static Instant now() {
    return Instant.now();
  }
}
