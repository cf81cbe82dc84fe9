package dev.vigil.notifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.harness.vendor.FakeVendor;
import dev.vigil.harness.vendor.PagerDutyContract;
import dev.vigil.harness.vendor.SlackContract;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Grouped Slack and PagerDuty messages on the real PostgreSQL and Kafka, against fakes that check
 * every body against the vendor's contract: transitions that arrive together go out as one message,
 * later ones as one update, a service's RECOVERED never before its FAILED, exactly one of two
 * instances sends each message, the signed webhook still gets one request per transition, and a
 * crash between the vendor's answer and the record repeats that one message and loses nothing.
 */
@ExtendWith(VigilInfraExtension.class)
class GroupingIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String PD_ACCEPTED =
      "{\"status\":\"success\",\"message\":\"Event processed\"}";

  private static Map<String, String> grouped(FakeVendor slack, FakeVendor pd) {
    Map<String, String> settings = new HashMap<>();
    settings.put(
        "VIGIL_NOTIFIER_ROUTES",
        """
        channels:
          team: {type: slack, url: "%s", group: {wait: 1s, interval: 1s, max: 100}}
          oncall: {type: pagerduty, url: "%s", routingKey: env:TEST_PD_KEY, group: {wait: 1s, interval: 1s}}
        routes:
          - {match: pay*, channels: [team, oncall, webhook]}
        """
            .formatted(slack.url("/services/T0/B0/secret"), pd.url("/v2/enqueue")));
    settings.put("TEST_PD_KEY", "pd-routing-key-0000000000000000");
    return settings;
  }

  @Test
  void aStormGoesOutAsOneMessagePerIntervalInEachServicesOrder(TestDatabase db, TestKafka kafka) {
    try (FakeVendor slack = new FakeVendor(SlackContract::violations, 200, "ok");
        FakeVendor pd = new FakeVendor(PagerDutyContract::violations, 202, PD_ACCEPTED);
        TestStack stack = TestStack.withoutNotifier(db, kafka, Map.of())) {
      slack.enforceOnePerSecond(2);
      // the storm is in the topic before the notifiers start (within their start look-back), so
      // that it arrives at once however loaded the machine is
      List<AlertEvent> down =
          IntStream.range(0, 6).mapToObj(i -> TestStack.failed("pay-" + i)).toList();
      down.forEach(stack::produce);
      stack.startInstance(grouped(slack, pd));
      stack.startInstance(grouped(slack, pd));
      await().atMost(WAIT).until(() -> delivered(stack, "team") == 6);
      down.forEach(f -> stack.produce(TestStack.recovered(f)));
      await()
          .atMost(WAIT)
          .until(() -> delivered(stack, "team") == 12 && delivered(stack, "oncall") == 12);
      await().atMost(WAIT).until(() -> stack.notifications.size() == 12);

      assertThat(slack.violations()).isEmpty();
      assertThat(slack.overLimit()).as("messages beyond Slack's rate").isEmpty();
      assertThat(pd.violations()).isEmpty();
      List<String> texts =
          slack.received().stream().map(r -> r.body().get("text").asText()).toList();
      // how the recoveries split over intervals depends on when they arrive; never one per event
      assertThat(texts.size()).as("12 transitions, grouped: %s", texts).isBetween(2, 6);
      assertThat(texts.getFirst()).startsWith(":red_circle: 6 services DOWN: pay-");
      for (AlertEvent failed : down) {
        int wentDown = firstNaming(texts, "*" + failed.service() + "* DOWN");
        int recovered = firstNaming(texts, "*" + failed.service() + "* RECOVERED");
        assertThat(wentDown).as("%s named DOWN in %s", failed.service(), texts).isNotNegative();
        assertThat(recovered)
            .as("%s RECOVERED after its DOWN", failed.service())
            .isGreaterThan(wentDown);
        assertThat(texts.get(wentDown))
            .contains(failed.incidentId().toString(), "connect timed out");
      }
      assertThat(texts.getLast()).contains("all recovered");

      // PagerDuty: the group is one incident, resolved when every service has recovered
      String pdGroup = stack.scalar("select group_id from notifier_group where channel = 'oncall'");
      assertThat(pd.received())
          .extracting(r -> r.body().get("dedup_key").asText())
          .containsOnly(pdGroup);
      JsonNode first = pd.received().getFirst().body();
      assertThat(first.get("event_action").asText()).isEqualTo("trigger");
      assertThat(first.at("/payload/custom_details/down")).isNotEmpty();
      assertThat(pd.received().getLast().body().get("event_action").asText()).isEqualTo("resolve");

      // exactly one instance sent each message, each event in exactly one message
      for (String channel : List.of("team", "oncall")) {
        assertThat(
                stack.count(
                    "select count(*) from notifier_group where channel = '"
                        + channel
                        + "' and status = 'CLOSED'"))
            .isEqualTo(1);
        assertThat(
                stack.column(
                    "select e from notifier_group_message m join notifier_group g using (group_id),"
                        + " unnest(m.event_ids) e where g.channel = '"
                        + channel
                        + "' and m.status in ('SENT', 'NOT_SENT')"))
            .hasSize(12)
            .doesNotHaveDuplicates();
      }
      assertThat(stack.count("select count(*) from notifier_group_message where attempts <> 1"))
          .isZero();
      assertThat(slack.received()).hasSize((int) sent(stack, "team"));
      assertThat(pd.received()).hasSize((int) sent(stack, "oncall"));
      // the signed webhook keeps one request per transition
      assertThat(stack.notifications).hasSize(12);
    }
  }

  @Test
  void anOpenGroupShowsInTheAdminApiAndTheGaugesAndHostileQueriesAreRefused(
      TestDatabase db, TestKafka kafka) throws Exception {
    try (FakeVendor slack = new FakeVendor(SlackContract::violations, 200, "ok");
        FakeVendor pd = new FakeVendor(PagerDutyContract::violations, 202, PD_ACCEPTED);
        TestStack stack = TestStack.withoutNotifier(db, kafka, Map.of())) {
      Map<String, String> settings = grouped(slack, pd);
      // Slack's next update is an hour away: the group stays open with what arrives meanwhile
      settings.put(
          "VIGIL_NOTIFIER_ROUTES",
          settings
              .get("VIGIL_NOTIFIER_ROUTES")
              .replace(
                  "group: {wait: 1s, interval: 1s, max: 100}", "group: {wait: 1s, interval: 1h}"));
      List<AlertEvent> down =
          IntStream.range(0, 3).mapToObj(i -> TestStack.failed("pay-g" + i)).toList();
      down.forEach(stack::produce);
      NotifierService notifier = stack.startInstance(settings);
      await().atMost(WAIT).until(() -> delivered(stack, "team") == 3);
      stack.produce(TestStack.failed("pay-g3"));
      await()
          .atMost(WAIT)
          .until(
              () ->
                  stack.count(
                          "select count(*) from notifier_receipt where status = 'PENDING'"
                              + " and channel = 'team'")
                      == 1);
      String groupId =
          stack.scalar(
              "select group_id from notifier_group where channel = 'team' and status = 'OPEN'");

      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                JsonNode groups =
                    NotifierHttp.json(
                        NotifierHttp.get(
                            notifier, "/admin/groups?channel=team", TestStack.ADMIN_TOKEN));
                assertThat(groups).hasSize(1);
                JsonNode team = groups.get(0);
                assertThat(team.get("groupId").asText()).isEqualTo(groupId);
                assertThat(team.get("channel").asText()).isEqualTo("team");
                assertThat(team.get("openedAt").asText()).isNotBlank();
                assertThat(team.get("messages").asInt()).isEqualTo(1);
                assertThat(team.get("servicesDown").asInt()).isEqualTo(3);
                assertThat(team.get("waiting").asInt()).isEqualTo(1);
                assertThat(team.get("nextSendInSeconds").asDouble()).isGreaterThan(3_000);
                assertThat(team.get("nextSendAt").asText()).isNotBlank();
              });
      JsonNode all =
          NotifierHttp.json(NotifierHttp.get(notifier, "/admin/groups", TestStack.ADMIN_TOKEN));
      assertThat(all).extracting(g -> g.get("channel").asText()).contains("team", "oncall");
      assertThat(NotifierHttp.channel(notifier, "team").get("openGroups").asInt()).isEqualTo(1);
      assertThat(NotifierHttp.channel(notifier, "webhook").get("openGroups").asInt()).isZero();
      await()
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertThat(NotifierHttp.get(notifier, "/metrics", null))
                      .contains("vigil_notifier_channel_groups_open{channel=\"team\"} 1.0")
                      .contains("vigil_notifier_channel_groups_services_down{channel=\"team\"} 3.0")
                      .contains("vigil_notifier_channel_groups_waiting{channel=\"team\"} 1.0")
                      .contains("vigil_notifier_channel_groups_open{channel=\"webhook\"} 0.0"));

      // hostile query strings: a clean 400 naming the field, never a 500
      for (String query :
          List.of(
              "channel=%00",
              "channel=TEAM",
              "channel=" + "a".repeat(500),
              "channel=a%20b",
              "channel=..%2Fteam",
              "channel=%25zz",
              "channel=%E2%80%AE",
              "channel=team&channel=webhook")) {
        HttpResponse<String> answer = status(notifier, "/admin/groups?" + query);
        assertThat(answer.statusCode()).as(query).isEqualTo(400);
        assertThat(answer.body()).as(query).contains("\"field\":\"channel\"");
      }
      assertThat(status(notifier, "/admin/groups?channel=nobody").body()).isEqualTo("[]");
      assertThat(NotifierHttp.get(notifier, "/admin/groups", null)).contains("bearer token");
    }
  }

  private static HttpResponse<String> status(NotifierService notifier, String path)
      throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + notifier.httpPort() + path))
            .header("Authorization", "Bearer " + TestStack.ADMIN_TOKEN)
            .timeout(Duration.ofSeconds(30))
            .build();
    try (HttpClient client = HttpClient.newHttpClient()) {
      return client.send(request, HttpResponse.BodyHandlers.ofString());
    }
  }

  @Test
  void aCrashBetweenTheVendorsAnswerAndTheRecordRepeatsOneMessageAndLosesNone(
      TestDatabase db, TestKafka kafka) throws Exception {
    try (FakeVendor slack = new FakeVendor(SlackContract::violations, 200, "ok");
        FakeVendor pd = new FakeVendor(PagerDutyContract::violations, 202, PD_ACCEPTED);
        TestStack stack = TestStack.withoutNotifier(db, kafka, Map.of())) {
      Map<String, String> settings = grouped(slack, pd);
      settings.put("VIGIL_NOTIFIER_LEASE", "2s");
      settings.put("VIGIL_WEBHOOK_READ_TIMEOUT", "1s");
      settings.put("VIGIL_WEBHOOK_CONNECT_TIMEOUT", "500ms");
      // While Slack accepts the first message, the test locks the group row: the sender's record
      // then waits on it, and its database session is killed there, as in a crash.
      AtomicReference<Connection> lock = new AtomicReference<>();
      slack.beforeNextAnswer(
          () -> {
            try {
              Connection connection = db.connect();
              connection.setAutoCommit(false);
              try (Statement statement = connection.createStatement()) {
                statement.execute("select group_id from notifier_group for update");
              }
              lock.set(connection);
            } catch (SQLException e) {
              throw new IllegalStateException(e);
            }
          });
      List<AlertEvent> down =
          IntStream.range(0, 3).mapToObj(i -> TestStack.failed("pay-c" + i)).toList();
      down.forEach(stack::produce);
      NotifierService crashing = stack.startInstance(settings);
      await().atMost(WAIT).until(() -> slack.received().size() == 1 && lock.get() != null);
      String waiting =
          "select pid from pg_stat_activity where datname = current_database()"
              + " and wait_event_type = 'Lock' and query like 'select 1 from notifier_group%'";
      await().atMost(WAIT).until(() -> stack.scalar(waiting) != null);
      assertThat(stack.scalar("select pg_terminate_backend(pid) from (" + waiting + ") w"))
          .isEqualTo("t");
      stack.stopInstance(crashing);
      lock.get().rollback();
      lock.get().close();
      assertThat(delivered(stack, "team")).as("the send was never recorded").isZero();

      stack.startInstance(settings);
      await().atMost(WAIT).until(() -> delivered(stack, "team") == 3);
      assertThat(slack.received()).as("the unrecorded message, sent once more").hasSize(2);
      assertThat(slack.received().get(1).body()).isEqualTo(slack.received().get(0).body());
      assertThat(slack.received().get(0).body().get("text").asText())
          .startsWith(":red_circle: 3 services DOWN: ")
          .contains("*pay-c0* DOWN", "*pay-c1* DOWN", "*pay-c2* DOWN");
      assertThat(
              stack.scalar(
                  "select m.attempts from notifier_group_message m join notifier_group g"
                      + " using (group_id) where g.channel = 'team' and m.seq = 1"))
          .isEqualTo("2");

      // the group goes on from the recorded state: nothing lost, nothing else repeated
      down.forEach(f -> stack.produce(TestStack.recovered(f)));
      await().atMost(WAIT).until(() -> delivered(stack, "team") == 6);
      assertThat(slack.received()).hasSize(3);
      assertThat(slack.received().get(2).body().get("text").asText())
          .startsWith(":large_green_circle: 3 RECOVERED; all recovered");
      assertThat(slack.violations()).isEmpty();
      assertThat(stack.count("select count(*) from notifier_receipt where status = 'DEAD'"))
          .isZero();
    }
  }

  private static long delivered(TestStack stack, String channel) {
    return stack.count(
        "select count(*) from notifier_receipt where channel = '"
            + channel
            + "' and status in ('DELIVERED', 'SKIPPED')");
  }

  private static long sent(TestStack stack, String channel) {
    return stack.count(
        "select count(*) from notifier_group_message m join notifier_group g using (group_id)"
            + " where g.channel = '"
            + channel
            + "' and m.status = 'SENT'");
  }

  private static int firstNaming(List<String> texts, String text) {
    for (int i = 0; i < texts.size(); i++) {
      if (texts.get(i).contains(text)) {
        return i;
      }
    }
    return -1;
  }
}
