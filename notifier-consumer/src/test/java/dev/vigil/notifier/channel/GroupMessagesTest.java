package dev.vigil.notifier.channel;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.harness.vendor.PagerDutyContract;
import dev.vigil.harness.vendor.SlackContract;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What grouped messages say: the state a group carries from message to message, the headlines,
 * Slack's text and PagerDuty's body (checked against the vendors' documented contracts).
 */
class GroupMessagesTest {
  private static final UUID GROUP = UUID.fromString("00000000-0000-0000-0000-00000000000a");
  private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");
  private static final PublicLinks LINKS = PublicLinks.of("https://vigil.example.com");
  private static final SlackChannel SLACK =
      new SlackChannel("team", URI.create("https://hooks.slack.example/T/B/x"), LINKS);
  private static final PagerDutyChannel PD =
      new PagerDutyChannel("oncall", PagerDutyChannel.DEFAULT_URL, "pd-key", "critical", LINKS);

  private static AlertEvent failed(String service, String error) {
    return AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), service, T0, 3, error);
  }

  private static AlertEvent recovered(AlertEvent failed) {
    return AlertEvent.recovered(
        UUID.randomUUID(),
        failed.incidentId(),
        failed.service(),
        T0.plusSeconds(250),
        3,
        failed.lastError(),
        failed.occurredAt());
  }

  private static List<AlertEvent> down(int count) {
    return IntStream.range(0, count)
        .mapToObj(i -> failed("svc-%02d".formatted(i), "HTTP 503"))
        .toList();
  }

  /** (downs in message 1, of them recovered in message 2, new downs in message 2) → headlines. */
  @ParameterizedTest(name = "{0} down, then {1} recovered and {2} more down")
  @CsvSource(
      delimiter = '|',
      value = {
        "1  | 0 | 0 | 1 service DOWN: svc-00                     | still down: svc-00",
        "3  | 0 | 1 | 3 services DOWN: svc-00, svc-01, svc-02    | 1 more DOWN; still down: svc-00, svc-01, svc-02 … (+1)",
        "37 | 0 | 0 | 37 services DOWN: svc-00, svc-01, svc-02 … (+34) | still down: svc-00, svc-01, svc-02 … (+34)",
        "15 | 12| 3 | 15 services DOWN: svc-00, svc-01, svc-02 … (+12) | 3 more DOWN, 12 RECOVERED; still down: svc-12, svc-13, svc-14 … (+3)",
        "2  | 2 | 0 | 2 services DOWN: svc-00, svc-01            | 2 RECOVERED; all recovered",
      })
  void headlinesOfAFirstMessageAndAnUpdate(
      int downs, int recoveries, int moreDown, String first, String update) {
    List<AlertEvent> failed = down(downs);
    GroupState.Step one = GroupState.empty().apply(GROUP, 1, failed, 100);
    assertThat(GroupText.headline(one.message())).isEqualTo(first);
    assertThat(one.message().first()).isTrue();

    List<AlertEvent> second = new ArrayList<>();
    failed.subList(0, recoveries).forEach(f -> second.add(recovered(f)));
    IntStream.range(0, moreDown).forEach(i -> second.add(failed("new-" + i, "timeout")));
    // the state survives the group row (JSON) between messages
    GroupState stored = GroupState.fromJson(one.next().toJson());
    GroupState.Step two = stored.apply(GROUP, 2, second, 100);
    assertThat(GroupText.headline(two.message())).isEqualTo(update);
    assertThat(two.message().stillDown()).hasSize(downs - recoveries + moreDown);
    assertThat(two.next().down()).hasSize(downs - recoveries + moreDown);
    assertThat(two.message().allRecovered()).isEqualTo(downs - recoveries + moreDown == 0);
  }

  @Test
  void aReminderChangesNothingAndKeepsTheServiceDown() {
    AlertEvent failed = failed("api", "HTTP 500");
    GroupState state = GroupState.empty().apply(GROUP, 1, List.of(failed), 10).next();
    AlertEvent reminder =
        AlertEvent.reminder(
            UUID.randomUUID(),
            failed.incidentId(),
            "api",
            T0.plusSeconds(3600),
            20,
            "HTTP 502",
            T0);
    GroupState.Step step = state.apply(GROUP, 2, List.of(reminder), 10);
    assertThat(step.message().changed()).isFalse();
    assertThat(step.message().reminders()).isEqualTo(1);
    assertThat(step.next().down()).extracting(GroupMessage.Down::service).containsExactly("api");
    assertThat(GroupText.headline(step.message())).isEqualTo("still down: api");
    assertThat(PD.request(step.message())).as("PagerDuty re-notifies by itself").isEmpty();
  }

  @Test
  void anEmailNamesEveryServiceItCarriesWithHostileErrorsKeptOnTheirLine() {
    EmailChannel mail =
        new EmailChannel(
            "ops-mail",
            new EmailChannel.Server(
                "smtp.example.com", 587, EmailChannel.Tls.STARTTLS, null, null, List.of()),
            "vigil@example.com",
            List.of("ops@example.com"),
            "[Vigil]",
            LINKS);
    List<AlertEvent> failed = new ArrayList<>(down(5));
    failed.add(failed("evil", "line one\r\nBcc: victim@example.com\u0000\nX-Injected: yes"));
    GroupMessage message = GroupState.empty().apply(GROUP, 1, failed, 3).message();
    EmailMessage email = mail.message(message);

    assertThat(email.subject()).isEqualTo("[Vigil] 6 services DOWN: svc-00, svc-01, svc-02 … (+3)");
    assertThat(email.messageId()).isEqualTo("<" + GROUP + ".1@example.com>");
    assertThat(email.headers())
        .containsEntry("References", "<" + GROUP + "@example.com>")
        .containsEntry("X-Vigil-Group-Id", GROUP.toString())
        .containsEntry("X-Vigil-Group-Message", "1");
    String body = email.body();
    assertThat(body)
        .startsWith("6 services DOWN: svc-00, svc-01, svc-02 … (+3)\n\n")
        .contains("DOWN svc-02 since " + T0 + "\n  Last error: HTTP 503\n  Incident: ")
        .contains("Service API: https://vigil.example.com/api/services/svc-00")
        .doesNotContain("DOWN svc-03 since")
        // max 3: the rest by name, every one of them
        .contains("\nAlso DOWN: svc-03, svc-04, evil\n")
        .contains("\nStill down (6): svc-00, svc-01, svc-02 … (+3)\n")
        .contains("Status page: https://vigil.example.com/status")
        .endsWith("Group: " + GROUP + ", message 1\n");
    assertThat(body.lines()).noneMatch(l -> l.startsWith("Bcc:") || l.startsWith("X-Injected:"));
    assertThat(body).doesNotContain("\u0000").doesNotContain("\r");

    // evil's error, shown in full when max allows it, stays on one line
    String all = mail.message(GroupState.empty().apply(GROUP, 1, failed, 10).message()).body();
    assertThat(all.lines().filter(l -> l.contains("Bcc: victim"))).hasSize(1);
    assertThat(all.lines()).noneMatch(l -> l.startsWith("Bcc:") || l.startsWith("X-Injected:"));

    GroupState after = GroupState.empty().apply(GROUP, 1, failed, 3).next();
    GroupMessage recoveredAll =
        after
            .apply(GROUP, 2, failed.stream().map(GroupMessagesTest::recovered).toList(), 3)
            .message();
    EmailMessage last = mail.message(recoveredAll);
    assertThat(last.subject()).isEqualTo("[Vigil] 6 RECOVERED; all recovered");
    assertThat(last.messageId()).isEqualTo("<" + GROUP + ".2@example.com>");
    assertThat(last.body())
        .contains("RECOVERED svc-00 after 4m 10s")
        .contains("\nAlso RECOVERED: svc-03, svc-04, evil\n")
        .contains("All services of this group have recovered.");
  }

  @Test
  void slackNamesEachServiceWithItsErrorIncidentAndLinksUpToMax() {
    List<AlertEvent> failed = new ArrayList<>(down(5));
    failed.add(failed("evil", "<!channel> & `rm` <https://x.example|click>"));
    GroupMessage message = GroupState.empty().apply(GROUP, 1, failed, 4).message();
    String text = SLACK.text(message);
    JsonNode body = body(SLACK.request(message).orElseThrow());

    assertThat(SlackContract.violations(body)).isEmpty();
    assertThat(text)
        .startsWith(":red_circle: 6 services DOWN: svc-00, svc-01, svc-02 … (+3)")
        .contains("• *svc-00* DOWN since 2026-12-03T10:00:00Z: `HTTP 503` · incident `")
        .contains(failed.get(3).incidentId().toString())
        .doesNotContain(failed.get(4).incidentId().toString())
        .contains("<https://vigil.example.com/api/services/svc-00|API>")
        .contains("\n… and 2 more")
        .contains("<https://vigil.example.com/status|Status page>")
        .contains("Group `" + GROUP + "` · message 1");
    assertThat(text.lines().filter(l -> l.startsWith("• "))).hasSize(4);

    GroupMessage all = GroupState.empty().apply(GROUP, 1, failed, 100).message();
    assertThat(SLACK.text(all))
        .as("outside text is escaped and cannot leave its code span")
        .contains("`&lt;!channel&gt; &amp; ˋrmˋ &lt;https://x.example|click&gt;`");
    assertThat(SlackContract.violations(body(SLACK.request(all).orElseThrow()))).isEmpty();
  }

  @Test
  void slackStaysWithinItsTextLimitWhateverTheErrors() {
    List<AlertEvent> failed =
        IntStream.range(0, 1000)
            .mapToObj(i -> failed("service-with-a-long-name-%04d".formatted(i), "x".repeat(500)))
            .toList();
    GroupMessage message = GroupState.empty().apply(GROUP, 1, failed, 1000).message();
    JsonNode body = body(SLACK.request(message).orElseThrow());
    assertThat(SlackContract.violations(body)).isEmpty();
    assertThat(body.get("text").asText()).contains(" more\n");
  }

  @Test
  void aStormMessageNamesEveryServiceItCarriesWithinEachVendorsLimit() {
    // as many as the delivery side lets a Slack message carry: names of 20 characters + 3 each
    int carried = SlackChannel.NAME_BUDGET / (20 + GroupChannel.NAME_OVERHEAD);
    List<AlertEvent> failed =
        IntStream.range(0, carried)
            .mapToObj(i -> failed("storm-service-%06d".formatted(i), "x".repeat(500)))
            .toList();
    GroupMessage message = GroupState.empty().apply(GROUP, 1, failed, 100).message();

    JsonNode slack = body(SLACK.request(message).orElseThrow());
    assertThat(SlackContract.violations(slack)).isEmpty();
    String text = slack.get("text").asText();
    for (AlertEvent event : failed) {
      assertThat(text).contains(event.service());
    }
    assertThat(text).containsPattern("\\n… and [0-9]+ more\\nDOWN: storm-service-");

    JsonNode pd = body(PD.request(message).orElseThrow());
    assertThat(PagerDutyContract.violations(pd)).isEmpty();
    assertThat(pd.at("/payload/custom_details/down_services")).hasSize(carried);
    assertThat(pd.at("/payload/custom_details/down")).hasSize(100);
  }

  @Test
  void pagerDutyOneIncidentPerGroupTriggeredThenResolvedWhenAllRecovered() {
    List<AlertEvent> failed = down(3);
    GroupState.Step one = GroupState.empty().apply(GROUP, 1, failed, 2);
    JsonNode trigger = body(PD.request(one.message()).orElseThrow());
    assertThat(PagerDutyContract.violations(trigger)).isEmpty();
    assertThat(trigger.get("dedup_key").asText()).isEqualTo(GROUP.toString());
    assertThat(trigger.get("event_action").asText()).isEqualTo("trigger");
    JsonNode payload = trigger.get("payload");
    assertThat(payload.get("summary").asText())
        .isEqualTo("3 services DOWN: svc-00, svc-01, svc-02");
    JsonNode details = payload.get("custom_details");
    assertThat(details.get("down")).hasSize(2);
    assertThat(details.get("down").get(0).get("last_error").asText()).isEqualTo("HTTP 503");
    assertThat(details.get("down").get(0).get("incident_id").asText())
        .isEqualTo(failed.get(0).incidentId().toString());
    assertThat(details.get("not_named").asInt()).isEqualTo(1);
    assertThat(details.get("still_down_count").asInt()).isEqualTo(3);

    GroupState.Step two =
        one.next().apply(GROUP, 2, List.of(recovered(failed.get(0)), recovered(failed.get(1))), 2);
    JsonNode update = body(PD.request(two.message()).orElseThrow());
    assertThat(PagerDutyContract.violations(update)).isEmpty();
    assertThat(update.get("event_action").asText()).isEqualTo("trigger");
    assertThat(update.get("dedup_key").asText()).isEqualTo(GROUP.toString());
    assertThat(update.at("/payload/summary").asText()).isEqualTo("2 RECOVERED; still down: svc-02");

    GroupState.Step three = two.next().apply(GROUP, 3, List.of(recovered(failed.get(2))), 2);
    JsonNode resolve = body(PD.request(three.message()).orElseThrow());
    assertThat(PagerDutyContract.violations(resolve)).isEmpty();
    assertThat(resolve.get("event_action").asText()).isEqualTo("resolve");
    assertThat(resolve.get("dedup_key").asText()).isEqualTo(GROUP.toString());
    assertThat(three.message().allRecovered()).isTrue();
  }

  @Test
  void aServiceThatFailsAgainIsDownWithItsNewIncident() {
    AlertEvent first = failed("api", "HTTP 500");
    GroupState state = GroupState.empty().apply(GROUP, 1, List.of(first), 10).next();
    state = state.apply(GROUP, 2, List.of(recovered(first)), 10).next();
    AlertEvent again = failed("api", "timeout");
    GroupState.Step step = state.apply(GROUP, 3, List.of(again), 10);
    assertThat(step.next().down())
        .singleElement()
        .satisfies(d -> assertThat(d.incidentId()).isEqualTo(again.incidentId()));
    assertThat(GroupText.headline(step.message())).isEqualTo("1 more DOWN; still down: api");
  }

  @Test
  void theSameStateAndEventsMakeTheSameMessage() {
    List<AlertEvent> failed = down(4);
    GroupState state = GroupState.fromJson(GroupState.empty().toJson());
    String once = SLACK.text(state.apply(GROUP, 1, failed, 100).message());
    String again =
        SLACK.text(GroupState.fromJson(state.toJson()).apply(GROUP, 1, failed, 100).message());
    assertThat(again).as("a message re-sent after a crash says the same").isEqualTo(once);
  }

  private static JsonNode body(ChannelRequest request) {
    try {
      return AlertEventJson.mapper().readTree(request.bodyText());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
