package dev.vigil.notifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.harness.vendor.FakeVendor;
import dev.vigil.harness.vendor.SlackContract;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Slack's rate, on the real PostgreSQL and Kafka, against a Slack fake that validates every body
 * and enforces one message per second per incoming webhook (429 with Retry-After beyond it). The
 * rate is shared by every notifier instance through the database, and a 429 holds back that channel
 * only, without costing an attempt.
 */
@ExtendWith(VigilInfraExtension.class)
class RateLimitIT {
  private static final Duration WAIT = Duration.ofSeconds(90);

  @Test
  void twoInstancesTogetherKeepSlacksOneMessagePerSecond(TestDatabase db, TestKafka kafka) {
    try (FakeVendor slack = new FakeVendor(SlackContract::violations, 200, "ok");
        TestStack stack = TestStack.withoutNotifier(db, kafka, Map.of())) {
      slack.enforceOnePerSecond(2);
      stack.startInstance(TestStack.slackForPay(slack));
      stack.startInstance(TestStack.slackForPay(slack));
      List<AlertEvent> down =
          IntStream.range(0, 6).mapToObj(i -> TestStack.failed("pay-" + i)).toList();
      down.forEach(stack::produce);

      await()
          .atMost(WAIT)
          .until(
              () ->
                  stack.count(
                          "select count(*) from notifier_receipt"
                              + " where channel = 'team' and status = 'DELIVERED'")
                      == 6);

      assertThat(slack.overLimit()).as("messages beyond Slack's rate").isEmpty();
      assertThat(slack.violations()).isEmpty();
      assertThat(slack.received())
          .hasSize(6)
          .allSatisfy(r -> assertThat(r.status()).isEqualTo(200));
      assertThat(
              stack.column(
                  "select attempts from notifier_receipt where channel = 'team' order by seq"))
          .containsOnly("1");
    }
  }

  /** Per event and grouped (a grouped message's 429 holds its channel the same way). */
  @ParameterizedTest(name = "group: {0}")
  @ValueSource(strings = {"off", "{wait: 1ms, interval: 1ms}"})
  void a429HoldsBackOnlyItsChannelAndCostsNoAttempt(String group, TestDatabase db, TestKafka kafka)
      throws Exception {
    try (FakeVendor slack = new FakeVendor(SlackContract::violations, 200, "ok");
        TestStack stack = TestStack.withoutNotifier(db, kafka, Map.of())) {
      slack.enforceOnePerSecond(2);
      slack.throttleNext(1, 20);
      NotifierService notifier = stack.startInstance(TestStack.slackForPay(slack, group));
      AlertEvent first = TestStack.failed("pay-1");
      AlertEvent second = TestStack.failed("pay-2");
      stack.produce(first);
      await().atMost(WAIT).until(() -> slack.received().size() == 1);
      stack.produce(second);

      // Retry-After (20 s) holds every Slack delivery back; the webhook goes on
      await()
          .atMost(WAIT)
          .until(
              () ->
                  "DELIVERED".equals(stack.status(first, "webhook"))
                      && "DELIVERED".equals(stack.status(second, "webhook")));
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                JsonNode team = NotifierHttp.channel(notifier, "team");
                assertThat(team.path("limited").asBoolean()).isTrue();
                assertThat(team.path("limitedBy").asText()).isEqualTo("retry-after");
                assertThat(team.path("pending").asLong()).isEqualTo(2);
                assertThat(team.path("rateLimit").asText()).isEqualTo("1/1s");
                JsonNode check =
                    NotifierHttp.json(NotifierHttp.get(notifier, "/health", null))
                        .path("checks")
                        .path("channels");
                assertThat(check.path("status").asText()).isEqualTo("UP");
                assertThat(check.path("detail").asText())
                    .contains("team limited by retry-after (2 pending");
                assertThat(NotifierHttp.get(notifier, "/metrics", null))
                    .containsPattern("vigil_notifier_channel_limited\\{channel=\"team\"[^}]*} 1.0")
                    .containsPattern("vigil_notifier_channel_pending\\{channel=\"team\"[^}]*} 2.0");
              });
      assertThat(slack.received()).as("nothing sent to Slack while it said wait").hasSize(1);
      assertThat(stack.status(first, "team")).isEqualTo("PENDING");
      assertThat(stack.attempts(first, "team")).as("the 429 is not an attempt").isZero();
      assertThat(
              stack.scalar(
                  "select last_status from notifier_receipt where event_id = '"
                      + first.eventId()
                      + "' and channel = 'team'"))
          .isEqualTo("429");

      await()
          .atMost(WAIT)
          .until(
              () ->
                  "DELIVERED".equals(stack.status(first, "team"))
                      && "DELIVERED".equals(stack.status(second, "team")));
      assertThat(stack.attempts(first, "team")).isEqualTo(1);
      assertThat(stack.attempts(second, "team")).isEqualTo(1);
      List<Integer> statuses = slack.received().stream().map(FakeVendor.Received::status).toList();
      if (group.equals("off")) {
        assertThat(statuses).containsExactly(429, 200, 200);
      } else {
        // the second transition may join the message that was held back, or follow it
        assertThat(statuses).first().isEqualTo(429);
        assertThat(statuses.subList(1, statuses.size())).isNotEmpty().containsOnly(200);
      }
      assertThat(slack.overLimit()).isEmpty();
      assertThat(slack.violations()).isEmpty();
      assertThat(NotifierHttp.get(notifier, "/metrics", null))
          .containsPattern(
              "vigil_notifier_attempts_total\\{channel=\"team\",outcome=\"throttled\"[^}]*} 1.0");
    }
  }
}
