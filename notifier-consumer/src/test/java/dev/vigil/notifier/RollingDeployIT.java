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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A rolling deploy that moves the Slack channel from one notifier instance to another, on the real
 * PostgreSQL and Kafka: two instances share the consumer group, only one has Slack. Deliveries to
 * Slack are claimed only by the instance that has it, whichever instance consumed the event; while
 * no running instance has Slack they wait (visible in the admin API and a metric) without an
 * attempt; the restart that swaps the instances' configurations delivers them. Nothing dead,
 * nothing lost, nothing twice at the Slack fake or the webhook receiver.
 */
@ExtendWith(VigilInfraExtension.class)
class RollingDeployIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Map<String, String> withSlack(FakeChannel slack) {
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
  void slackMovesBetweenInstancesWithNothingDeadLostOrSentTwice(TestDatabase db, TestKafka kafka)
      throws Exception {
    try (FakeChannel slack = new FakeChannel(SlackContract::violations, 200, "ok");
        TestStack stack = TestStack.withoutNotifier(db, kafka, Map.of())) {
      NotifierService oldWithSlack = stack.startInstance(withSlack(slack));
      NotifierService oldWithout = stack.startInstance(Map.of());
      List<AlertEvent> down =
          IntStream.range(0, 6).mapToObj(i -> TestStack.failed("pay-" + i)).toList();
      AlertEvent search = TestStack.failed("search");
      List<AlertEvent> events = new ArrayList<>(down);
      events.add(search);
      events.forEach(stack::produce);

      // whichever instance consumed an event, its Slack delivery exists and the Slack one sends it
      await()
          .atMost(WAIT)
          .until(
              () ->
                  unfinished(stack) == 0
                      && rows(stack, "team") == 6
                      && rows(stack, "webhook") == 7);
      assertThat(slack.received).hasSize(6);

      // the only instance with Slack stops: what arrives meanwhile waits for Slack, visibly
      stack.stopInstance(oldWithSlack);
      List<AlertEvent> up = down.stream().map(TestStack::recovered).toList();
      up.forEach(stack::produce);
      await()
          .atMost(WAIT)
          .until(() -> up.stream().allMatch(e -> "DELIVERED".equals(status(stack, e, "webhook"))));
      await()
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertThat(
                          get(oldWithout, "/metrics", null)
                              .lines()
                              .filter(
                                  l ->
                                      l.startsWith("vigil_notifier_channel_unserved_pending{")
                                          && l.contains("channel=\"team\""))
                              .toList())
                      .singleElement()
                      .satisfies(l -> assertThat(l).endsWith(" 6.0")));
      JsonNode team = channel(oldWithout, "team");
      assertThat(team.path("waitingForInstance").asBoolean()).isTrue();
      assertThat(team.path("pending").asLong()).isEqualTo(6);
      assertThat(team.path("instances")).isEmpty();
      assertThat(team.path("configuredHere").asBoolean()).isFalse();
      assertThat(channel(oldWithout, "webhook").path("waitingForInstance").asBoolean()).isFalse();
      assertThat(
              stack.count(
                  "select coalesce(sum(attempts), 0) from notifier_receipt"
                      + " where channel = 'team' and status = 'PENDING'"))
          .as("no attempt is made while no running instance has the channel")
          .isZero();
      assertThat(slack.received).hasSize(6);

      // the restart that swaps them: the instance without Slack comes back with it, and the other
      // without it
      stack.stopInstance(oldWithout);
      NotifierService newWithSlack = stack.startInstance(withSlack(slack));
      stack.startInstance(Map.of());
      await().atMost(WAIT).until(() -> unfinished(stack) == 0);

      assertThat(stack.count("select count(*) from notifier_receipt where status <> 'DELIVERED'"))
          .as("nothing dead, skipped or pending")
          .isZero();
      assertThat(rows(stack, "team")).isEqualTo(12);
      assertThat(slack.violations()).isEmpty();
      List<String> texts = slack.received.stream().map(r -> r.body().get("text").asText()).toList();
      assertThat(texts).as("each Slack message once").doesNotHaveDuplicates().hasSize(12);
      for (int i = 0; i < 6; i++) {
        String service = "*pay-" + i + "*";
        List<String> mine = texts.stream().filter(t -> t.contains(service)).toList();
        assertThat(mine).hasSize(2);
        assertThat(mine.get(0)).as("FAILED before RECOVERED").contains("is DOWN");
        assertThat(mine.get(1)).contains("RECOVERED");
      }
      List<AlertEvent> all = new ArrayList<>(events);
      all.addAll(up);
      for (AlertEvent event : all) {
        assertThat(stack.requestsFor(event.eventId()))
            .as("webhook request of %s", event.service())
            .hasSize(1);
      }
      assertThat(channel(newWithSlack, "team").path("instances")).hasSize(1);
    }
  }

  private static long unfinished(TestStack stack) {
    return stack.count("select count(*) from notifier_receipt where status in ('PENDING', 'DEAD')");
  }

  private static long rows(TestStack stack, String channel) {
    return stack.count("select count(*) from notifier_receipt where channel = '" + channel + "'");
  }

  private static String status(TestStack stack, AlertEvent event, String channel) {
    return stack.scalar(
        "select status from notifier_receipt where event_id = '"
            + event.eventId()
            + "' and channel = '"
            + channel
            + "'");
  }

  private static JsonNode channel(NotifierService instance, String name) throws Exception {
    for (JsonNode channel :
        JSON.readTree(get(instance, "/admin/channels", TestStack.ADMIN_TOKEN))) {
      if (channel.path("channel").asText().equals(name)) {
        return channel;
      }
    }
    throw new AssertionError("channel " + name + " not listed by /admin/channels");
  }

  static String get(NotifierService instance, String path, String token) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + instance.httpPort() + path))
            .timeout(Duration.ofSeconds(30));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    try (HttpClient client = HttpClient.newHttpClient()) {
      return client.send(request.build(), HttpResponse.BodyHandlers.ofString()).body();
    }
  }
}
