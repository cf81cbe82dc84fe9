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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A rolling deploy that moves the Slack channel from one notifier instance to another, on the real
 * PostgreSQL and Kafka: two instances share the consumer group, only one has Slack. Deliveries to
 * Slack are claimed only by the instance that has it, whichever instance consumed the event; while
 * no running instance has Slack they wait (visible in the admin API and a metric) without an
 * attempt; the restart that swaps the instances' configurations delivers them. Nothing dead,
 * nothing lost, nothing twice at the Slack fake or the webhook receiver. Both with one Slack
 * message per transition and with Slack's default, grouped messages (a group opened by one instance
 * is carried on by the other).
 */
@ExtendWith(VigilInfraExtension.class)
class RollingDeployIT {
  private static final Duration WAIT = Duration.ofSeconds(90);

  @ParameterizedTest(name = "group: {0}")
  @ValueSource(strings = {"off", "{wait: 1s, interval: 1s}"})
  void slackMovesBetweenInstancesWithNothingDeadLostOrSentTwice(
      String group, TestDatabase db, TestKafka kafka) throws Exception {
    boolean grouped = !group.equals("off");
    try (FakeVendor slack = new FakeVendor(SlackContract::violations, 200, "ok");
        TestStack stack = TestStack.withoutNotifier(db, kafka, Map.of())) {
      NotifierService oldWithSlack = stack.startInstance(TestStack.slackForPay(slack, group));
      NotifierService oldWithout = stack.startInstance(Map.of());
      List<AlertEvent> down =
          IntStream.range(0, 6).mapToObj(i -> TestStack.failed("pay-" + i)).toList();
      AlertEvent search = TestStack.failed("search");
      List<AlertEvent> events = new ArrayList<>(down);
      events.add(search);
      events.forEach(stack::produce);

      // whichever instance consumed an event, its Slack delivery exists and the Slack one sends it
      await().atMost(WAIT).until(() -> allFinished(stack, 6, 7));
      int sentBeforeStop = slack.received().size();
      if (grouped) {
        assertThat(sentBeforeStop).isBetween(1, 6);
      } else {
        assertThat(sentBeforeStop).isEqualTo(6);
      }

      // the only instance with Slack stops: what arrives meanwhile waits for Slack, visibly
      stack.stopInstance(oldWithSlack);
      List<AlertEvent> up = down.stream().map(TestStack::recovered).toList();
      up.forEach(stack::produce);
      await()
          .atMost(WAIT)
          .until(() -> up.stream().allMatch(e -> "DELIVERED".equals(stack.status(e, "webhook"))));
      await()
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertThat(
                          NotifierHttp.get(oldWithout, "/metrics", null)
                              .lines()
                              .filter(
                                  l ->
                                      l.startsWith("vigil_notifier_channel_unserved_pending{")
                                          && l.contains("channel=\"team\""))
                              .toList())
                      .singleElement()
                      .satisfies(l -> assertThat(l).endsWith(" 6.0")));
      JsonNode team = NotifierHttp.channel(oldWithout, "team");
      assertThat(team.path("waitingForInstance").asBoolean()).isTrue();
      assertThat(team.path("pending").asLong()).isEqualTo(6);
      assertThat(team.path("instances")).isEmpty();
      assertThat(team.path("configuredHere").asBoolean()).isFalse();
      assertThat(NotifierHttp.channel(oldWithout, "webhook").path("waitingForInstance").asBoolean())
          .isFalse();
      assertThat(
              stack.count(
                  "select coalesce(sum(attempts), 0) from notifier_receipt"
                      + " where channel = 'team' and status = 'PENDING'"))
          .as("no attempt is made while no running instance has the channel")
          .isZero();
      assertThat(slack.received()).hasSize(sentBeforeStop);

      // the restart that swaps them: the instance without Slack comes back with it, and the other
      // without it
      stack.stopInstance(oldWithout);
      NotifierService newWithSlack = stack.startInstance(TestStack.slackForPay(slack, group));
      stack.startInstance(Map.of());
      await().atMost(WAIT).until(() -> unfinished(stack) == 0);

      assertThat(stack.count("select count(*) from notifier_receipt where status <> 'DELIVERED'"))
          .as("nothing dead, skipped or pending")
          .isZero();
      assertThat(rows(stack, "team")).isEqualTo(12);
      assertThat(slack.violations()).isEmpty();
      List<String> texts =
          slack.received().stream().map(r -> r.body().get("text").asText()).toList();
      assertThat(texts).as("each Slack message once").doesNotHaveDuplicates();
      if (!grouped) {
        assertThat(texts).hasSize(12);
      }
      for (int i = 0; i < 6; i++) {
        String service = "*pay-" + i + "*";
        List<String> mine = texts.stream().filter(t -> t.contains(service)).toList();
        assertThat(mine)
            .as("%s named in one message as DOWN, in a later one RECOVERED", service)
            .hasSize(2);
        assertThat(mine.get(0))
            .as("FAILED before RECOVERED")
            .contains(service + (grouped ? " DOWN since" : " is DOWN"));
        assertThat(mine.get(1)).contains(service + " RECOVERED");
      }
      List<AlertEvent> all = new ArrayList<>(events);
      all.addAll(up);
      for (AlertEvent event : all) {
        assertThat(stack.requestsFor(event.eventId()))
            .as("webhook request of %s", event.service())
            .hasSize(1);
      }
      assertThat(NotifierHttp.channel(newWithSlack, "team").path("instances")).hasSize(1);
    }
  }

  private static long unfinished(TestStack stack) {
    return stack.count("select count(*) from notifier_receipt where status in ('PENDING', 'DEAD')");
  }

  /**
   * Whether the receipts of both channels all exist and none is unfinished, read in one statement:
   * counted one after the other, "none unfinished" could be read before the first receipt exists.
   */
  private static boolean allFinished(TestStack stack, int team, int webhook) {
    return "t"
        .equals(
            stack.scalar(
                """
                select count(*) filter (where status in ('PENDING', 'DEAD')) = 0
                   and count(*) filter (where channel = 'team') = %d
                   and count(*) filter (where channel = 'webhook') = %d
                  from notifier_receipt
                """
                    .formatted(team, webhook)));
  }

  private static long rows(TestStack stack, String channel) {
    return stack.count("select count(*) from notifier_receipt where channel = '" + channel + "'");
  }
}
