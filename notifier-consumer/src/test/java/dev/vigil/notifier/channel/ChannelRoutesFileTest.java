package dev.vigil.notifier.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vigil.contract.webhook.WebhookSecret;
import dev.vigil.notifier.webhook.WebhookRoute;
import dev.vigil.notifier.webhook.WebhookRoutes;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChannelRoutesFileTest {
  /** The signed webhook every parsed routes file starts from (also EmailChannelTest's). */
  static final Channel WEBHOOK =
      new WebhookChannel(
          new WebhookRoutes(
              new WebhookRoute(
                  "*",
                  URI.create("https://hook.example/vigil"),
                  null,
                  WebhookSecret.parseList(WebhookSecret.generate()),
                  false),
              List.of()),
          Clock.systemUTC());

  private static final Map<String, String> ENV =
      Map.of("PD_KEY", "pd-key-from-env", "SLACK_URL", "https://hooks.slack.example/T/B/x");
  private static final ChannelRoutesFile.Context CONTEXT =
      new ChannelRoutesFile.Context(ENV::get, false, "", PublicLinks.NONE);

  private static final String CHANNELS =
      """
      channels:
        oncall: {type: pagerduty, routingKey: env:PD_KEY}
        team: {type: slack, url: env:SLACK_URL}
        am: {type: alertmanager, url: https://am.example}
        am-hook: {type: alertmanager-webhook, url: https://hooks.example/am}
      """;

  private static ChannelRoutes parse(String text) {
    return ChannelRoutesFile.parse(text, WEBHOOK, CONTEXT);
  }

  @Test
  void firstMatchingRouteWinsAndUnroutedServicesKeepTheWebhook() {
    ChannelRoutes routes =
        parse(
            CHANNELS
                + """
                routes:
                  - {match: payments, channels: [oncall, team, webhook]}
                  - {match: pay*, channels: [team]}
                  - {match: web-*, channels: [am, am-hook]}
                """);
    assertThat(routes.channelsFor("payments")).containsExactly("oncall", "team", "webhook");
    assertThat(routes.channelsFor("payroll")).containsExactly("team");
    assertThat(routes.channelsFor("web-shop")).containsExactly("am", "am-hook");
    assertThat(routes.channelsFor("search")).containsExactly("webhook");
    assertThat(routes.names()).containsExactly("webhook", "oncall", "team", "am", "am-hook");
  }

  @Test
  void jsonIsReadToo() {
    ChannelRoutes routes =
        parse(
            """
            {"channels": {"am": {"type": "alertmanager", "url": "https://am.example"}},
             "routes": [{"match": "*", "channels": ["am", "webhook"]}]}
            """);
    assertThat(routes.channelsFor("anything")).containsExactly("am", "webhook");
  }

  @Test
  void secretsComeFromFilesOrTheDefaultRoutingKeySetting(@TempDir Path dir) throws Exception {
    Path key = Files.writeString(dir.resolve("pd"), "pd-key-from-file\n");
    ChannelRoutes routes =
        parse(
            "channels: {oncall: {type: pagerduty, routingKey: 'file:"
                + key
                + "'}}\nroutes: [{match: '*', channels: [oncall]}]");
    assertThat(routes.channels().get("oncall")).isInstanceOf(PagerDutyChannel.class);
    ChannelRoutes fallback =
        ChannelRoutesFile.parse(
            "channels: {oncall: {type: pagerduty}}",
            WEBHOOK,
            new ChannelRoutesFile.Context(ENV::get, false, "from-setting", PublicLinks.NONE));
    assertThat(fallback.channels()).containsKey("oncall");
  }

  @Test
  void aBadRouteOrChannelIsNamedWithItsField() {
    assertRefused(
        CHANNELS + "routes: [{match: payments, channels: [oncall, pd]}]",
        "route 1 (match 'payments'): field 'channels': unknown channel 'pd'");
    assertRefused(
        CHANNELS + "routes: [{match: payments, channels: []}]",
        "route 1 (match 'payments'): field 'channels': must list 1 or more names");
    assertRefused(
        CHANNELS + "routes: [{match: 'Pay ments', channels: [team]}]",
        "route 1: field 'match': must be *");
    assertRefused(
        CHANNELS + "routes: [{match: '*', channels: [team]}, {match: api, channels: [am]}]",
        "route 2 (match 'api'): field 'match': never used, the earlier route '*'");
    assertRefused(
        CHANNELS + "routes: [{match: web-*, channels: [team]}, {match: web-x*, channels: [am]}]",
        "route 2 (match 'web-x*'): field 'match': never used");
    assertRefused(
        CHANNELS + "routes: [{match: api, channels: [team], continue: true}]",
        "route 1 (match 'api'): field 'continue': unknown");
    assertRefused(
        "channels: {oncall: {type: pagerduty}}", "channel 'oncall': field 'routingKey': missing");
    assertRefused(
        "channels: {oncall: {type: pagerduty, routingKey: env:NOPE}}",
        "channel 'oncall': field 'routingKey': environment variable NOPE is not set");
    assertRefused(
        "channels: {oncall: {type: pagerduty, routingKey: plain-text-key}}",
        "channel 'oncall': field 'routingKey': must be an env:NAME or file:PATH reference");
    assertRefused(
        "channels: {oncall: {type: pagerduty, routingKey: env:PD_KEY, severity: fatal}}",
        "channel 'oncall': field 'severity': must be one of");
    assertRefused(
        "channels: {team: {type: slack, url: 'http://hooks.example/x'}}",
        "channel 'team': field 'url': must use https");
    assertRefused(
        "channels: {team: {type: teams}}", "channel 'team': field 'type': must be one of");
    assertRefused(
        "channels: {team: {type: slack, url: env:SLACK_URL, token: x}}",
        "channel 'team': field 'token': unknown");
    assertRefused(
        "channels: {webhook: {type: slack, url: env:SLACK_URL}}",
        "channel 'webhook': the name is taken");
    assertRefused(
        "channels: {'a,b': {type: slack, url: env:SLACK_URL}}", "channel 'a,b': the name must");
    assertRefused(
        "channels: {am: {type: alertmanager, url: 'https://am', firingFor: soon}}",
        "channel 'am': field 'firingFor': ");
    assertRefused(
        "channels: {am: {type: alertmanager, url: 'https://am'}, am: {type: slack}}",
        "not valid YAML or JSON");
    assertRefused("[1, 2]", "must be an object with 'channels' and 'routes'");
  }

  @Test
  void slackIsLimitedToOneMessagePerSecondPerWebhookUrlByDefault() {
    ChannelRoutes routes =
        parse(
            """
            channels:
              team: {type: slack, url: env:SLACK_URL}
              same: {type: slack, url: env:SLACK_URL, rateLimit: 30/1m}
              other: {type: slack, url: 'https://hooks.slack.example/T/B/y'}
              oncall: {type: pagerduty, routingKey: env:PD_KEY}
              paced: {type: pagerduty, routingKey: env:PD_KEY, rateLimit: 120/1m}
            """);
    RateLimit team = routes.limits().get("team");
    assertThat(team.text()).isEqualTo("1/1s");
    assertThat(team.interval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(routes.limits().get("same").bucket())
        .as("one webhook URL, one bucket")
        .isEqualTo(team.bucket());
    assertThat(routes.limits().get("same").interval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(routes.limits().get("other").bucket()).isNotEqualTo(team.bucket());
    assertThat(team.bucket()).startsWith("slack:").doesNotContain("hooks.slack.example");
    assertThat(routes.limits().get("oncall").text())
        .as("PagerDuty's documented Events API v2 limit per routing key")
        .isEqualTo("120/1m");
    assertThat(routes.limits().get("oncall").interval()).isEqualTo(Duration.ofMillis(500));
    assertThat(routes.limits().get("paced").interval()).isEqualTo(Duration.ofMillis(500));
    assertThat(routes.limits()).doesNotContainKey("webhook");
  }

  @Test
  void aBadRateLimitIsRefusedWithTheFieldAndWhy() {
    String why = "channel 'team': field 'rateLimit': ";
    for (String bad :
        List.of(
            "fast",
            "0/s",
            "1/0s",
            "1/25h",
            "99999/1ms",
            "10001/s",
            "1 / s",
            "-1/s",
            "1/s\\u0000",
            "1/s\\udc00",
            "9".repeat(5000) + "/s")) {
      assertRefused(
          "channels: {team: {type: slack, url: env:SLACK_URL, rateLimit: \"" + bad + "\"}}", why);
    }
    assertRefused("channels: {team: {type: slack, url: env:SLACK_URL, rateLimit: 5}}", why);
    assertRefused("channels: {team: {type: slack, url: env:SLACK_URL, rateLimit: ''}}", why);
  }

  @Test
  void refusalsNeverShowASecretValue() {
    assertThatThrownBy(
            () ->
                parse(
                    "channels: {team: {type: slack, url: env:SLACK_URL}}\n"
                        + "routes: [{match: x, channels: [team, nope]}]"))
        .hasMessageNotContaining("hooks.slack.example");
  }

  private static void assertRefused(String text, String message) {
    assertThatThrownBy(() -> parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }
}
