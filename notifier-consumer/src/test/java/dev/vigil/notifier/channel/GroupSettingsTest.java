package dev.vigil.notifier.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The {@code group} field of Slack and PagerDuty channels in the routes file. */
class GroupSettingsTest {
  private static final ChannelRoutesFile.Context CONTEXT =
      new ChannelRoutesFile.Context(
          Map.of("PD_KEY", "pd-key", "SLACK_URL", "https://hooks.slack.example/T/B/x")::get,
          false,
          "",
          PublicLinks.NONE);

  private static ChannelRoutes parse(String channel) {
    return ChannelRoutesFile.parse(
        "channels: {c: " + channel + "}", ChannelRoutesFileTest.WEBHOOK, CONTEXT);
  }

  @ParameterizedTest(name = "{0} -> grouped={1} wait={2} interval={3} max={4}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{type: slack, url: env:SLACK_URL}                                  | true  | PT10S   | PT1M  | 100",
        "{type: pagerduty, routingKey: env:PD_KEY}                          | true  | PT10S   | PT1M  | 100",
        "{type: slack, url: env:SLACK_URL, group: {wait: 300ms}}            | true  | PT0.3S  | PT1M  | 100",
        "{type: slack, url: env:SLACK_URL, group: {interval: 5m, max: 1}}   | true  | PT10S   | PT5M  | 1",
        "{type: slack, url: env:SLACK_URL, group: {wait: 1h, interval: 24h, max: 1000}} | true | PT1H | PT24H | 1000",
        "{type: pagerduty, routingKey: env:PD_KEY, group: off}              | false | PT10S   | PT1M  | 100",
        "{type: slack, url: env:SLACK_URL, group: false}                    | false | PT10S   | PT1M  | 100",
      })
  void readsTheGroupField(
      String channel, boolean grouped, Duration wait, Duration interval, int max) {
    ChannelRoutes routes = parse(channel);
    assertThat(routes.groups().containsKey("c")).isEqualTo(grouped);
    if (grouped) {
      GroupSettings group = routes.groups().get("c");
      assertThat(group.waitFor()).isEqualTo(wait);
      assertThat(group.interval()).isEqualTo(interval);
      assertThat(group.max()).isEqualTo(max);
    }
  }

  @ParameterizedTest(name = "{0} refused: {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{wait: 0s}                  | field 'group.wait': must be a duration from 1ms to 1h",
        "{wait: -1s}                 | field 'group.wait'",
        "{wait: 2h}                  | field 'group.wait'",
        "{wait: 10}                  | field 'group.wait'",
        "{wait: soon}                | field 'group.wait'",
        "{interval: 0ms}             | field 'group.interval': must be a duration from 1ms to 24h",
        "{interval: 25h}             | field 'group.interval'",
        "{interval: 999999999999999h} | field 'group.interval'",
        "{max: 0}                    | field 'group.max': must be a whole number from 1 to 1000",
        "{max: 1001}                 | field 'group.max'",
        "{max: 2.5}                  | field 'group.max'",
        "{max: '10'}                 | field 'group.max'",
        "{max: 99999999999}          | field 'group.max'",
        "{wiat: 10s}                 | field 'group.wiat': unknown (known: ",
        "on                          | field 'group': must be off or {wait: 10s, interval: 1m, max: 100}",
        "[10s]                       | field 'group': must be off",
      })
  void refusesBadGroupsNamingTheField(String group, String message) {
    assertThatThrownBy(() -> parse("{type: slack, url: env:SLACK_URL, group: " + group + "}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("channel 'c': ")
        .hasMessageContaining(message);
  }

  @ParameterizedTest
  @CsvSource({
    "alertmanager, url: https://am.example",
    "alertmanager-webhook, url: https://a.example"
  })
  void onlySlackAndPagerDutyGroup(String type, String field) {
    assertThatThrownBy(() -> parse("{type: " + type + ", " + field + ", group: {wait: 1s}}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field 'group': unknown");
  }
}
