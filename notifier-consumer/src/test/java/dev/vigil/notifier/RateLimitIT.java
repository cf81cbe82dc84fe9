package dev.vigil.notifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.notifier.channel.SlackContract;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Slack's rate, on the real PostgreSQL and Kafka, against a Slack fake that validates every body
 * and enforces one message per second per incoming webhook (429 with Retry-After beyond it). The
 * rate is shared by every notifier instance through the database, and a 429 holds back that channel
 * only, without costing an attempt.
 */
@ExtendWith(VigilInfraExtension.class)
class RateLimitIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Map<String, String> slackRoutes(FakeChannel slack) {
    return Map.of(
        "VIGIL_NOTIFIER_ROUTES",
        """
        channels:
          team: {type: slack, url: "%s"}
        routes:
          - {match: pay*, channels: [team, webhook]}
        """
            .formatted(slack.url("/services/T0/B0/secret")));
  }

  @Test
  void twoInstancesTogetherKeepSlacksOneMessagePerSecond(TestDatabase db, TestKafka kafka) {
    try (FakeChannel slack = new FakeChannel(SlackContract::violations, 200, "ok");
        TestStack stack = TestStack.withoutNotifier(db, kafka, Map.of())) {
      slack.enforceOnePerSecond(2);
      stack.startInstance(slackRoutes(slack));
      stack.startInstance(slackRoutes(slack));
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

      assertThat(slack.overLimit).as("messages beyond Slack's rate").isEmpty();
      assertThat(slack.violations()).isEmpty();
      assertThat(slack.received).hasSize(6).allSatisfy(r -> assertThat(r.status()).isEqualTo(200));
      assertThat(
              stack.column(
                  "select attempts from notifier_receipt where channel = 'team' order by seq"))
          .containsOnly("1");
    }
  }

  @Test
  void a429HoldsBackOnlyItsChannelAndCostsNoAttempt(TestDatabase db, TestKafka kafka)
      throws Exception {
    try (FakeChannel slack = new FakeChannel(SlackContract::violations, 200, "ok");
        TestStack stack = TestStack.withoutNotifier(db, kafka, Map.of())) {
      slack.enforceOnePerSecond(2);
      slack.throttleNext(1, 20);
      NotifierService notifier = stack.startInstance(slackRoutes(slack));
      AlertEvent first = TestStack.failed("pay-1");
      AlertEvent second = TestStack.failed("pay-2");
      stack.produce(first);
      await().atMost(WAIT).until(() -> slack.received.size() == 1);
      stack.produce(second);

      // Retry-After (20 s) holds every Slack delivery back; the webhook goes on
      await()
          .atMost(WAIT)
          .until(
              () ->
                  "DELIVERED".equals(status(stack, first, "webhook"))
                      && "DELIVERED".equals(status(stack, second, "webhook")));
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                JsonNode team = channel(notifier, "team");
                assertThat(team.path("limited").asBoolean()).isTrue();
                assertThat(team.path("limitedBy").asText()).isEqualTo("retry-after");
                assertThat(team.path("pending").asLong()).isEqualTo(2);
                assertThat(team.path("rateLimit").asText()).isEqualTo("1/1s");
                JsonNode check =
                    JSON.readTree(RollingDeployIT.get(notifier, "/health", null))
                        .path("checks")
                        .path("channels");
                assertThat(check.path("status").asText()).isEqualTo("UP");
                assertThat(check.path("detail").asText())
                    .contains("team limited by retry-after (2 pending");
                assertThat(RollingDeployIT.get(notifier, "/metrics", null))
                    .containsPattern("vigil_notifier_channel_limited\\{channel=\"team\"[^}]*} 1.0")
                    .containsPattern("vigil_notifier_channel_pending\\{channel=\"team\"[^}]*} 2.0");
              });
      assertThat(slack.received).as("nothing sent to Slack while it said wait").hasSize(1);
      assertThat(status(stack, first, "team")).isEqualTo("PENDING");
      assertThat(attempts(stack, first, "team")).as("the 429 is not an attempt").isZero();
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
                  "DELIVERED".equals(status(stack, first, "team"))
                      && "DELIVERED".equals(status(stack, second, "team")));
      assertThat(attempts(stack, first, "team")).isEqualTo(1);
      assertThat(attempts(stack, second, "team")).isEqualTo(1);
      assertThat(slack.received)
          .extracting(FakeChannel.Received::status)
          .containsExactly(429, 200, 200);
      assertThat(slack.overLimit).isEmpty();
      assertThat(slack.violations()).isEmpty();
      assertThat(RollingDeployIT.get(notifier, "/metrics", null))
          .containsPattern(
              "vigil_notifier_attempts_total\\{channel=\"team\",outcome=\"throttled\"[^}]*} 1.0");
    }
  }

  private static String status(TestStack stack, AlertEvent event, String channel) {
    return stack.scalar(
        "select status from notifier_receipt where event_id = '"
            + event.eventId()
            + "' and channel = '"
            + channel
            + "'");
  }

  private static long attempts(TestStack stack, AlertEvent event, String channel) {
    return stack.count(
        "select attempts from notifier_receipt where event_id = '"
            + event.eventId()
            + "' and channel = '"
            + channel
            + "'");
  }

  private static JsonNode channel(NotifierService instance, String name) throws Exception {
    for (JsonNode channel :
        JSON.readTree(RollingDeployIT.get(instance, "/admin/channels", TestStack.ADMIN_TOKEN))) {
      if (channel.path("channel").asText().equals(name)) {
        return channel;
      }
    }
    throw new AssertionError("channel " + name + " not listed by /admin/channels");
  }
}
