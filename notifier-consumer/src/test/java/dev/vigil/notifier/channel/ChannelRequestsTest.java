package dev.vigil.notifier.channel;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.harness.vendor.PagerDutyContract;
import dev.vigil.harness.vendor.SlackContract;
import dev.vigil.kit.tracing.TraceParent;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ChannelRequestsTest {
  static final PublicLinks LINKS = PublicLinks.of("https://vigil.example.com/");
  static final String HOSTILE = "<!channel> & <https://evil.example|click> </script>\u0000 >";
  static final Instant OPENED = Instant.parse("2026-12-01T02:00:00Z");
  static final AlertEvent FAILED =
      AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "payments", OPENED, 3, HOSTILE);
  static final AlertEvent RECOVERED =
      AlertEvent.recovered(
          UUID.randomUUID(),
          FAILED.incidentId(),
          "payments",
          OPENED.plusSeconds(725),
          3,
          HOSTILE,
          OPENED);
  static final AlertEvent REMINDER =
      AlertEvent.reminder(
          UUID.randomUUID(),
          FAILED.incidentId(),
          "payments",
          OPENED.plusSeconds(3 * 3600 + 60),
          40,
          HOSTILE,
          OPENED);

  private final PagerDutyChannel pagerDuty =
      new PagerDutyChannel(
          "oncall",
          URI.create("https://pd.example/v2/enqueue"),
          "R0UT1NGKEY0000000000000000000000",
          "critical",
          LINKS);

  static JsonNode body(Channel channel, AlertEvent event) {
    ChannelRequest request = channel.request(event, AlertEventJson.write(event)).orElseThrow();
    assertThat(request.headers()).containsEntry("Content-Type", "application/json");
    try {
      return AlertEventJson.mapper().readTree(request.body());
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void pagerDutyTriggersOnFailedWithTheIncidentAsDedupKeyAndTheEventAsCustomDetails() {
    JsonNode body = body(pagerDuty, FAILED);
    assertThat(PagerDutyContract.violations(body)).isEmpty();
    assertThat(body.get("event_action").asText()).isEqualTo("trigger");
    assertThat(body.get("dedup_key").asText()).isEqualTo(FAILED.incidentId().toString());
    assertThat(body.get("routing_key").asText()).isEqualTo("R0UT1NGKEY0000000000000000000000");
    assertThat(body.at("/payload/severity").asText()).isEqualTo("critical");
    assertThat(body.at("/payload/source").asText()).isEqualTo("payments");
    assertThat(body.at("/payload/summary").asText()).startsWith("payments is DOWN");
    assertThat(body.at("/payload/custom_details/eventId").asText())
        .isEqualTo(FAILED.eventId().toString());
    assertThat(body.at("/payload/custom_details/lastError").asText()).isEqualTo(HOSTILE);
    assertThat(body.at("/links/0/href").asText())
        .isEqualTo("https://vigil.example.com/api/services/payments");
  }

  @Test
  void pagerDutyResolvesOnRecoveredAndSendsNothingOnReminder() {
    JsonNode body = body(pagerDuty, RECOVERED);
    assertThat(PagerDutyContract.violations(body)).isEmpty();
    assertThat(body.get("event_action").asText()).isEqualTo("resolve");
    assertThat(body.get("dedup_key").asText()).isEqualTo(FAILED.incidentId().toString());
    assertThat(pagerDuty.request(REMINDER, AlertEventJson.write(REMINDER))).isEmpty();
  }

  @Test
  void pagerDutyCutsAnOverlongSummaryToItsLimitAndNeverShowsTheKey() {
    AlertEvent longError =
        AlertEvent.failed(
            UUID.randomUUID(), UUID.randomUUID(), "payments", OPENED, 3, "x".repeat(500));
    AlertEvent longer =
        AlertEvent.failed(
            UUID.randomUUID(),
            UUID.randomUUID(),
            "p".repeat(50),
            OPENED,
            Integer.MAX_VALUE,
            "y".repeat(500));
    assertThat(PagerDutyContract.violations(body(pagerDuty, longError))).isEmpty();
    assertThat(PagerDutyContract.violations(body(pagerDuty, longer))).isEmpty();
    assertThat(pagerDuty.toString()).doesNotContain("R0UT1NG");
    assertThat(pagerDuty.request(FAILED, AlertEventJson.write(FAILED)).orElseThrow().toString())
        .doesNotContain("R0UT1NG")
        .doesNotContain("/v2/enqueue");
  }

  @Test
  void slackEscapesHostileErrorsAndNamesWhatRecoveredCloses() {
    SlackChannel slack =
        new SlackChannel("team", URI.create("https://hooks.slack.example/T/B/secret"), LINKS);
    for (AlertEvent event : new AlertEvent[] {FAILED, RECOVERED, REMINDER}) {
      JsonNode body = body(slack, event);
      assertThat(SlackContract.violations(body)).as(event.kind().name()).isEmpty();
      assertThat(body.get("text").asText())
          .as(event.kind().name())
          .doesNotContain("<!channel>")
          .contains("<https://vigil.example.com/status|Status page>");
    }
    assertThat(body(slack, FAILED).get("text").asText())
        .contains("*payments* is DOWN since 2026-12-01T02:00:00Z")
        .contains("&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;");
    assertThat(body(slack, RECOVERED).get("text").asText())
        .contains("RECOVERED")
        .contains("12m 5s of downtime")
        .contains("Closes incident `" + FAILED.incidentId() + "`, DOWN since " + OPENED);
    assertThat(body(slack, REMINDER).get("text").asText()).contains("still DOWN: 3h 1m since");
  }

  @Test
  void slackWithoutPublicUrlSendsNoLinks() {
    SlackChannel slack =
        new SlackChannel("team", URI.create("https://hooks.slack.example/x"), PublicLinks.NONE);
    JsonNode body = body(slack, FAILED);
    assertThat(SlackContract.violations(body)).isEmpty();
    assertThat(body.get("text").asText()).doesNotContain("Status page");
  }

  @Test
  void alertmanagerFiresUntilFarEndAndResolvesAtRecovery() {
    AlertmanagerChannel am =
        new AlertmanagerChannel(
            "am", URI.create("http://am.example:9093"), "page", Duration.ofDays(7), LINKS);
    ChannelRequest request = am.request(FAILED, AlertEventJson.write(FAILED)).orElseThrow();
    assertThat(request.url()).isEqualTo(URI.create("http://am.example:9093/api/v2/alerts"));
    JsonNode firing = body(am, FAILED).get(0);
    assertThat(firing.at("/labels/alertname").asText()).isEqualTo("VigilServiceDown");
    assertThat(firing.at("/labels/service").asText()).isEqualTo("payments");
    assertThat(firing.at("/labels/incident_id").asText()).isEqualTo(FAILED.incidentId().toString());
    assertThat(firing.at("/labels/severity").asText()).isEqualTo("page");
    assertThat(firing.at("/annotations/last_error").asText()).isEqualTo(HOSTILE);
    assertThat(firing.get("startsAt").asText()).isEqualTo(OPENED.toString());
    assertThat(firing.get("endsAt").asText()).isEqualTo(OPENED.plus(Duration.ofDays(7)).toString());
    JsonNode reminder = body(am, REMINDER).get(0);
    assertThat(reminder.get("startsAt").asText()).isEqualTo(OPENED.toString());
    assertThat(reminder.get("endsAt").asText())
        .isEqualTo(REMINDER.occurredAt().plus(Duration.ofDays(7)).toString());
    JsonNode resolved = body(am, RECOVERED).get(0);
    assertThat(resolved.get("labels")).isEqualTo(firing.get("labels"));
    assertThat(resolved.get("startsAt").asText()).isEqualTo(OPENED.toString());
    assertThat(resolved.get("endsAt").asText()).isEqualTo(RECOVERED.occurredAt().toString());
  }

  @Test
  void alertmanagerAlertsCarryTheDeliverySpansTraceparentAsAnAnnotation() throws Exception {
    TraceParent trace =
        TraceParent.parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").orElseThrow();
    AlertmanagerChannel am =
        new AlertmanagerChannel(
            "am", URI.create("http://am.example:9093"), "page", Duration.ofDays(7), LINKS);
    AlertmanagerWebhookChannel hook =
        new AlertmanagerWebhookChannel(
            "am-hook", URI.create("https://hooks.example/am"), "critical", LINKS);
    JsonNode posted =
        AlertEventJson.mapper()
            .readTree(am.request(FAILED, AlertEventJson.write(FAILED), trace).orElseThrow().body());
    assertThat(posted.at("/0/annotations/traceparent").asText()).isEqualTo(trace.toString());
    JsonNode webhook =
        AlertEventJson.mapper()
            .readTree(
                hook.request(RECOVERED, AlertEventJson.write(RECOVERED), trace)
                    .orElseThrow()
                    .body());
    assertThat(webhook.at("/alerts/0/annotations/traceparent").asText())
        .isEqualTo(trace.toString());
    // Untraced: no annotation rather than an empty one.
    assertThat(body(am, FAILED).at("/0/annotations").has("traceparent")).isFalse();
  }

  @Test
  void alertmanagerWebhookFormatCarriesVersionFourAndTheGroupFields() {
    AlertmanagerWebhookChannel hook =
        new AlertmanagerWebhookChannel(
            "am-hook", URI.create("https://hooks.example/am"), "critical", LINKS);
    JsonNode firing = body(hook, FAILED);
    assertThat(firing.get("version").asText()).isEqualTo("4");
    assertThat(firing.get("status").asText()).isEqualTo("firing");
    assertThat(firing.get("receiver").asText()).isEqualTo("am-hook");
    assertThat(firing.get("groupKey").asText()).isEqualTo("{}:{service=\"payments\"}");
    assertThat(firing.at("/groupLabels/service").asText()).isEqualTo("payments");
    assertThat(firing.at("/commonLabels/incident_id").asText())
        .isEqualTo(FAILED.incidentId().toString());
    assertThat(firing.get("externalURL").asText()).isEqualTo("https://vigil.example.com/status");
    assertThat(firing.get("truncatedAlerts").asInt()).isZero();
    assertThat(firing.get("alerts")).hasSize(1);
    assertThat(firing.at("/alerts/0/status").asText()).isEqualTo("firing");
    assertThat(firing.at("/alerts/0/endsAt").asText()).isEqualTo("0001-01-01T00:00:00Z");
    assertThat(firing.at("/alerts/0/fingerprint").asText()).matches("[0-9a-f]{16}");
    JsonNode resolved = body(hook, RECOVERED);
    assertThat(resolved.get("status").asText()).isEqualTo("resolved");
    assertThat(resolved.at("/alerts/0/endsAt").asText())
        .isEqualTo(RECOVERED.occurredAt().toString());
    assertThat(resolved.at("/alerts/0/fingerprint")).isEqualTo(firing.at("/alerts/0/fingerprint"));
  }

  @Test
  void aDeferredFailedSaysDownSinceTheOpeningNotTheEndOfTheQuietPeriod() throws Exception {
    SlackChannel slack =
        new SlackChannel("team", URI.create("https://hooks.slack.example/x"), PublicLinks.NONE);
    AlertmanagerChannel am =
        new AlertmanagerChannel(
            "am", URI.create("http://am.example:9093"), "page", Duration.ofDays(7), LINKS);
    Instant windowEnd = OPENED.plus(Duration.ofHours(4));
    AlertEvent deferred =
        AlertEvent.deferredFailed(
            UUID.randomUUID(), UUID.randomUUID(), "payments", windowEnd, 40, "timeout", OPENED);
    assertThat(body(slack, deferred).get("text").asText())
        .contains("is DOWN since " + OPENED)
        .doesNotContain("since " + windowEnd);
    assertThat(body(am, deferred).get(0).get("startsAt").asText()).isEqualTo(OPENED.toString());
    assertThat(body(pagerDuty, deferred).at("/payload/timestamp").asText())
        .isEqualTo(OPENED.toString());
    // An ordinary FAILED opened when it occurred.
    assertThat(body(slack, FAILED).get("text").asText()).contains("is DOWN since " + OPENED);
  }

  @Test
  void aBacktickOrLineBreakInAnErrorCannotLeaveSlacksCodeSpan() throws Exception {
    SlackChannel slack =
        new SlackChannel("team", URI.create("https://hooks.slack.example/x"), PublicLinks.NONE);
    AlertEvent event =
        AlertEvent.failed(
            UUID.randomUUID(),
            UUID.randomUUID(),
            "payments",
            OPENED,
            3,
            "bad `<!channel>` *bold*\nnext line");
    String text = body(slack, event).get("text").asText();
    String span = text.substring(text.indexOf("Last error: `") + "Last error: `".length());
    span = span.substring(0, span.indexOf('`'));
    assertThat(span).isEqualTo("bad \u02cb&lt;!channel&gt;\u02cb *bold* next line");
    assertThat(text.chars().filter(c -> c == '`').count())
        .as("only the spans' own backticks")
        .isEqualTo(4);
  }
}
