package dev.vigil.bench.storm;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.harness.vendor.FakeVendor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What each message a vendor fake accepted says, read the way a person reads it: which services it
 * names as DOWN and which as RECOVERED. Slack: the one-per-event texts ({@code *svc* is DOWN},
 * {@code *svc* RECOVERED at}) and the grouped ones (a line per service, then {@code DOWN: a, b} and
 * {@code RECOVERED: c} for the rest). PagerDuty: a trigger names its {@code source} (one per event)
 * or its {@code custom_details.down_services} / {@code recovered_services} (grouped); a resolve
 * names every service its dedup key was triggered for and has not yet recovered.
 */
final class VendorMessages {
  /**
   * One accepted message.
   *
   * @param atMicros when the vendor received it, epoch µs
   */
  record Message(long atMicros, Set<String> down, Set<String> recovered) {}

  private static final Pattern SLACK_DOWN =
      Pattern.compile("(?m)(?:^:red_circle: |^• )\\*([a-z0-9_-]+)\\* (?:is )?DOWN");
  private static final Pattern SLACK_RECOVERED =
      Pattern.compile("(?m)(?:^:large_green_circle: |^• )\\*([a-z0-9_-]+)\\* RECOVERED");
  private static final Pattern SLACK_LIST = Pattern.compile("(?m)^(DOWN|RECOVERED): (.*)$");

  private VendorMessages() {}

  /** The accepted (2xx) Slack messages, in arrival order. */
  static List<Message> slack(FakeVendor slack) {
    List<Message> messages = new ArrayList<>();
    for (FakeVendor.Received r : slack.received()) {
      if (r.status() >= 300 || r.body() == null) {
        continue;
      }
      String text = r.body().path("text").asText("");
      Set<String> down = new LinkedHashSet<>();
      Set<String> recovered = new LinkedHashSet<>();
      collect(SLACK_DOWN.matcher(text), down);
      collect(SLACK_RECOVERED.matcher(text), recovered);
      Matcher lists = SLACK_LIST.matcher(text);
      while (lists.find()) {
        Set<String> into = lists.group(1).equals("DOWN") ? down : recovered;
        for (String name : lists.group(2).split(", ")) {
          if (name.matches("[a-z0-9_-]+")) {
            into.add(name);
          }
        }
      }
      messages.add(new Message(r.atMicros(), down, recovered));
    }
    return messages;
  }

  /** The accepted (2xx) PagerDuty events, in arrival order. */
  static List<Message> pagerDuty(FakeVendor pd) {
    List<Message> messages = new ArrayList<>();
    Map<String, Set<String>> openByKey = new HashMap<>();
    for (FakeVendor.Received r : pd.received()) {
      if (r.status() >= 300 || r.body() == null) {
        continue;
      }
      JsonNode body = r.body();
      String key = body.path("dedup_key").asText("");
      Set<String> open = openByKey.computeIfAbsent(key, k -> new LinkedHashSet<>());
      Set<String> down = new LinkedHashSet<>();
      Set<String> recovered = new LinkedHashSet<>();
      if (body.path("event_action").asText().equals("resolve")) {
        recovered.addAll(open);
        open.clear();
      } else {
        JsonNode details = body.at("/payload/custom_details");
        if (details.has("down_services")) {
          details.get("down_services").forEach(n -> down.add(n.asText()));
          details.get("recovered_services").forEach(n -> recovered.add(n.asText()));
        } else {
          down.add(body.at("/payload/source").asText());
        }
        open.addAll(down);
        open.removeAll(recovered);
      }
      messages.add(new Message(r.atMicros(), down, recovered));
    }
    return messages;
  }

  private static void collect(Matcher matcher, Set<String> into) {
    while (matcher.find()) {
      into.add(matcher.group(1));
    }
  }
}
