package dev.vigil.notifier.channel;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A Slack incoming webhook: one readable {@code text} message (mrkdwn) per event. FAILED names the
 * service, since when and the last error; RECOVERED names the incident and when it was opened (the
 * FAILED it closes) and the downtime; REMINDER says how long the service has been down. Text from
 * outside (errors, resolutions) is escaped for Slack ({@code &}, {@code <}, {@code >}), so a probe
 * error can never become a link or a mention. The webhook URL is a credential: it is never logged.
 */
public final class SlackChannel implements GroupChannel {
  /** Room kept below Slack's 40,000 characters of {@code text}. */
  static final int MAX_TEXT = 38_000;

  private final String name;
  private final URI url;
  private final PublicLinks links;

  public SlackChannel(String name, URI url, PublicLinks links) {
    this.name = Objects.requireNonNull(name);
    this.url = Objects.requireNonNull(url);
    this.links = links;
  }

  @Override
  public String endpoint() {
    return url.toString();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Optional<ChannelRequest> request(AlertEvent event, String payload) {
    ObjectNode body = AlertEventJson.mapper().createObjectNode();
    body.put("text", text(event));
    return Optional.of(ChannelRequest.json(url, body.toString()));
  }

  @Override
  public Optional<ChannelRequest> request(GroupMessage message) {
    ObjectNode body = AlertEventJson.mapper().createObjectNode();
    body.put("text", text(message));
    return Optional.of(ChannelRequest.json(url, body.toString()));
  }

  /**
   * Characters of names a grouped message lists at most (see {@link GroupChannel#nameBudget}): with
   * the headline, the lines in full, the status page and the group it stays within {@link
   * #MAX_TEXT}.
   */
  static final int NAME_BUDGET = 30_000;

  @Override
  public int nameBudget() {
    return NAME_BUDGET;
  }

  /**
   * A grouped message in mrkdwn: the headline, one line per service in full (at most {@code max},
   * and only while the names of the rest still fit), then every other service by name ({@code … and
   * N more}, {@code DOWN: a, b, …}, {@code RECOVERED: c, …}), the status page and the group. Never
   * beyond Slack's text limit: names that would not fit are counted ({@code … (+N)}); the delivery
   * side carries no more transitions than {@link #NAME_BUDGET} names.
   */
  String text(GroupMessage m) {
    String emoji =
        !m.down().isEmpty()
            ? ":red_circle: "
            : m.allRecovered() ? ":large_green_circle: " : ":large_orange_circle: ";
    StringBuilder text = new StringBuilder(emoji).append(escape(GroupText.headline(m)));
    StringBuilder footer = new StringBuilder();
    if (links.present()) {
      footer.append("\n<").append(links.statusPage()).append("|Status page>");
    }
    footer.append("\nGroup `").append(m.groupId()).append("` · message ").append(m.seq());
    int limit = MAX_TEXT - footer.length();
    List<String> down = m.down().stream().map(GroupMessage.Down::service).toList();
    List<String> recovered = m.recovered().stream().map(GroupMessage.Recovered::service).toList();
    int allNames = 60;
    for (String name : down) {
      allNames += escape(name).length() + NAME_OVERHEAD;
    }
    for (String name : recovered) {
      allNames += escape(name).length() + NAME_OVERHEAD;
    }
    List<String> lines = new ArrayList<>();
    for (GroupMessage.Down d : m.down()) {
      lines.add(
          "\n• *"
              + escape(d.service())
              + "* DOWN since "
              + d.since()
              + (d.lastError() == null ? "" : ": `" + code(GroupText.error(d.lastError())) + "`")
              + " · incident `"
              + d.incidentId()
              + "`"
              + (links.present() ? " · <" + links.service(d.service()) + "|API>" : ""));
    }
    for (GroupMessage.Recovered r : m.recovered()) {
      lines.add(
          "\n• *"
              + escape(r.service())
              + "* RECOVERED after "
              + AlertText.human(r.downtime())
              + " · incident `"
              + r.incidentId()
              + "`");
    }
    int room = GroupText.named(m);
    int named = 0;
    for (String line : lines) {
      if (named >= room || text.length() + line.length() + allNames > limit) {
        break;
      }
      text.append(line);
      named++;
    }
    if (named < lines.size()) {
      text.append("\n… and ").append(lines.size() - named).append(" more");
      names(text, "DOWN", down.subList(Math.min(named, down.size()), down.size()), limit);
      names(
          text,
          "RECOVERED",
          recovered.subList(Math.max(0, named - down.size()), recovered.size()),
          limit);
    }
    return text.append(footer).toString();
  }

  /** {@code \nDOWN: a, b, c}, cut with {@code … (+N)} where {@code limit} would be passed. */
  private static void names(StringBuilder text, String label, List<String> names, int limit) {
    if (names.isEmpty()) {
      return;
    }
    text.append("\n").append(label).append(": ");
    for (int i = 0; i < names.size(); i++) {
      String piece = (i == 0 ? "" : ", ") + escape(names.get(i));
      if (text.length() + piece.length() + 12 > limit) {
        text.append(" … (+").append(names.size() - i).append(")");
        return;
      }
      text.append(piece);
    }
  }

  /** The message in Slack's mrkdwn. */
  String text(AlertEvent event) {
    String service = "*" + escape(event.service()) + "*";
    String error =
        event.lastError() == null ? "" : "\nLast error: `" + code(event.lastError()) + "`";
    String text =
        switch (event.kind()) {
          case FAILED ->
              ":red_circle: "
                  + service
                  + " is DOWN since "
                  + (event.openedAt() != null ? event.openedAt() : event.occurredAt())
                  + " ("
                  + event.consecutiveFailures()
                  + " failed checks)"
                  + error
                  + "\nIncident `"
                  + event.incidentId()
                  + "`";
          case RECOVERED ->
              ":large_green_circle: "
                  + service
                  + " RECOVERED at "
                  + event.occurredAt()
                  + " after "
                  + AlertText.human(event.downtime())
                  + " of downtime"
                  + (event.resolution() == null ? "" : " (" + escape(event.resolution()) + ")")
                  + "\nCloses incident `"
                  + event.incidentId()
                  + "`, DOWN since "
                  + event.openedAt();
          case REMINDER ->
              ":warning: "
                  + service
                  + " is still DOWN: "
                  + AlertText.human(event.downtime())
                  + " since "
                  + event.openedAt()
                  + error
                  + "\nIncident `"
                  + event.incidentId()
                  + "`";
        };
    if (links.present()) {
      text +=
          "\n<"
              + links.statusPage()
              + "|Status page> · <"
              + links.service(event.service())
              + "|"
              + escape(event.service())
              + " in the API>";
    }
    return text;
  }

  /**
   * Text for inside a code span: escaped, and with no character that would end the span early
   * (Slack has no escape for a backtick there, so it becomes U+02CB, which looks alike) or leave it
   * (a line break becomes a space).
   */
  static String code(String text) {
    return escape(text).replace('`', '\u02cb').replace('\n', ' ').replace('\r', ' ');
  }

  /** Slack's three control characters in text, as Slack documents them. */
  static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
