package dev.vigil.notifier.channel;

import dev.vigil.contract.AlertEvent;
import dev.vigil.kit.SafeText;
import dev.vigil.kit.tracing.TraceParent;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Email over SMTP: plain-text mails to a fixed list of addresses, grouped like Slack's by default
 * (one mail per group message, see {@link #message(GroupMessage)}), or with {@code group: off} one
 * mail per event. An event's subject is {@code <prefix> DOWN|RECOVERED|REMINDER <service>}; the
 * body names the service, the kind, the last error, when the incident opened, the downtime, the
 * incident and event ids and the monitor's links when known. The {@code Message-ID} is derived from
 * the event id, {@code References} from the incident id (mail readers thread an incident's mails).
 * Unlike the HTTP channels this one builds an {@link EmailMessage}, not a {@link ChannelRequest}:
 * the delivery loop sends it over SMTP with the same claims, retries and dead state (SMTP 4xx and
 * connection failures retried, 5xx permanent). The password is never logged: {@link
 * Server#toString} leaves it out.
 */
public final class EmailChannel implements GroupChannel {
  /** How the connection to the SMTP server is protected. */
  public enum Tls {
    /** Plain connection upgraded with STARTTLS, which the server must offer (port 587). */
    STARTTLS,
    /** TLS from the first byte, "SMTPS" (port 465). */
    TLS,
    /** No encryption at all (only when configured explicitly, never with a password). */
    NONE
  }

  /**
   * Where and how to connect.
   *
   * @param username null when the server takes mail without authentication
   * @param trusted certificates to trust instead of the JVM's default trust store; empty for the
   *     default
   */
  public record Server(
      String host,
      int port,
      Tls tls,
      String username,
      String password,
      List<X509Certificate> trusted) {
    public Server {
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(tls, "tls");
      trusted = List.copyOf(trusted);
    }

    @Override
    public String toString() {
      return "Server[smtp://"
          + host
          + ":"
          + port
          + ", tls="
          + tls
          + ", username="
          + username
          + ", password="
          + (password == null ? "none" : "(hidden)")
          + "]";
    }
  }

  private final String name;
  private final Server server;
  private final String from;
  private final List<String> to;
  private final String subjectPrefix;
  private final PublicLinks links;

  public EmailChannel(
      String name,
      Server server,
      String from,
      List<String> to,
      String subjectPrefix,
      PublicLinks links) {
    this.name = Objects.requireNonNull(name);
    this.server = Objects.requireNonNull(server);
    this.from = Objects.requireNonNull(from);
    this.to = List.copyOf(to);
    this.subjectPrefix = Objects.requireNonNull(subjectPrefix);
    this.links = Objects.requireNonNull(links);
  }

  @Override
  public String name() {
    return name;
  }

  /** The SMTP server (channels on one server share a rate limit). */
  @Override
  public String endpoint() {
    return "smtp://" + server.host() + ":" + server.port();
  }

  public Server server() {
    return server;
  }

  /** Not an HTTP channel: the delivery loop sends {@link #message} over SMTP instead. */
  @Override
  public Optional<ChannelRequest> request(AlertEvent event, String payload) {
    throw new UnsupportedOperationException("channel '" + name + "' sends email: use message()");
  }

  /** Not an HTTP channel: the group worker sends {@link #message(GroupMessage)} over SMTP. */
  @Override
  public Optional<ChannelRequest> request(GroupMessage message) {
    throw new UnsupportedOperationException("channel '" + name + "' sends email: use message()");
  }

  /**
   * Characters of service names one grouped mail lists at most (see {@link
   * GroupChannel#nameBudget}): a mail of some hundred kilobytes, well within what mail servers
   * accept (commonly 10 MB and more).
   */
  static final int NAME_BUDGET = 100_000;

  @Override
  public int nameBudget() {
    return NAME_BUDGET;
  }

  /** The mail announcing {@code event}. */
  public EmailMessage message(AlertEvent event) {
    return message(event, null);
  }

  /**
   * The mail announcing {@code event} from within the delivery's span {@code trace} (null: not
   * traced): its W3C {@code traceparent} goes out as a {@code Traceparent} header, as on the HTTP
   * channels, so a mail can be followed back to the probe that saw the failure.
   */
  public EmailMessage message(AlertEvent event, TraceParent trace) {
    String domain = domain();
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("References", "<" + event.incidentId() + "@" + domain + ">");
    headers.put("Auto-Submitted", "auto-generated");
    headers.put("X-Vigil-Event-Id", event.eventId().toString());
    headers.put("X-Vigil-Incident-Id", event.incidentId().toString());
    headers.put("X-Vigil-Kind", event.kind().name());
    if (trace != null) {
      headers.put("Traceparent", trace.toString());
    }
    return new EmailMessage(
        from, to, subject(event), body(event), "<" + event.eventId() + "@" + domain + ">", headers);
  }

  /**
   * The mail carrying one grouped message: the subject is {@code <prefix> } and the message's
   * headline ({@code [Vigil] 37 services DOWN: api, auth, billing … (+34)}); the body lists one
   * line per service (at most {@code max}: since when, the last error, the incident, the link),
   * then every other service the message carries by name, the services still down, the status page
   * and the group. The {@code Message-ID} is derived from the group and the message's number (a
   * repeated send after a crash carries the same one), {@code References} from the group, so mail
   * readers thread a group's mails.
   */
  public EmailMessage message(GroupMessage m) {
    String domain = domain();
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("References", "<" + m.groupId() + "@" + domain + ">");
    headers.put("Auto-Submitted", "auto-generated");
    headers.put("X-Vigil-Group-Id", m.groupId().toString());
    headers.put("X-Vigil-Group-Message", String.valueOf(m.seq()));
    return new EmailMessage(
        from,
        to,
        subjectPrefix + " " + GroupText.headline(m),
        body(m),
        "<" + m.groupId() + "." + m.seq() + "@" + domain + ">",
        headers);
  }

  /** Plain text of a grouped mail; text from outside (last errors) escaped and shortened. */
  String body(GroupMessage m) {
    StringBuilder text = new StringBuilder(GroupText.headline(m)).append("\n\n");
    // at most max services in full, those that went down first; every other one by name
    int downInFull = Math.min(GroupText.named(m), m.down().size());
    int recoveredInFull = GroupText.named(m) - downInFull;
    for (GroupMessage.Down d : m.down().subList(0, downInFull)) {
      text.append("DOWN ").append(d.service()).append(" since ").append(d.since());
      if (d.lastError() != null) {
        text.append("\n  Last error: ").append(outside(GroupText.error(d.lastError())));
      }
      text.append("\n  Incident: ").append(d.incidentId());
      if (links.present()) {
        text.append("\n  Service API: ").append(links.service(d.service()));
      }
      text.append('\n');
    }
    for (GroupMessage.Recovered r : m.recovered().subList(0, recoveredInFull)) {
      text.append("RECOVERED ")
          .append(r.service())
          .append(" after ")
          .append(AlertText.human(r.downtime()))
          .append("\n  Incident: ")
          .append(r.incidentId())
          .append('\n');
    }
    List<GroupMessage.Down> moreDown = m.down().subList(downInFull, m.down().size());
    if (!moreDown.isEmpty()) {
      names(text, "Also DOWN", moreDown.stream().map(GroupMessage.Down::service).toList());
    }
    List<GroupMessage.Recovered> moreRecovered =
        m.recovered().subList(recoveredInFull, m.recovered().size());
    if (!moreRecovered.isEmpty()) {
      names(
          text,
          "Also RECOVERED",
          moreRecovered.stream().map(GroupMessage.Recovered::service).toList());
    }
    if (m.reminders() > 0) {
      text.append("\n").append(m.reminders()).append(" reminder(s): still down as before\n");
    }
    if (m.allRecovered()) {
      text.append("\nAll services of this group have recovered.\n");
    } else {
      List<String> still =
          m.stillDown().stream().limit(m.max()).map(GroupMessage.Down::service).toList();
      int more = m.stillDown().size() - still.size();
      text.append("\nStill down (")
          .append(m.stillDown().size())
          .append("): ")
          .append(String.join(", ", still))
          .append(more == 0 ? "" : " … (+" + more + ")")
          .append('\n');
    }
    text.append('\n');
    if (links.present()) {
      line(text, "Status page", links.statusPage());
    }
    line(text, "Group", m.groupId() + ", message " + m.seq());
    return text.toString();
  }

  /** {@code \nLabel: a, b, c\n}: every name (the delivery side keeps them within the budget). */
  private static void names(StringBuilder text, String label, List<String> services) {
    text.append('\n').append(label).append(": ").append(String.join(", ", services)).append('\n');
  }

  private String domain() {
    return from.substring(from.lastIndexOf('@') + 1);
  }

  /** {@code [Vigil] DOWN checkout}. */
  String subject(AlertEvent event) {
    String what =
        switch (event.kind()) {
          case FAILED -> "DOWN";
          case RECOVERED -> "RECOVERED";
          case REMINDER -> "REMINDER";
        };
    return subjectPrefix + " " + what + " " + event.service();
  }

  /** Plain text; text from outside (errors, resolutions) with control characters escaped. */
  String body(AlertEvent event) {
    String headline =
        switch (event.kind()) {
          case FAILED ->
              event.service() + " is DOWN (" + event.consecutiveFailures() + " failed checks)";
          case RECOVERED ->
              event.service() + " RECOVERED after " + AlertText.human(event.downtime());
          case REMINDER ->
              event.service() + " is still DOWN, for " + AlertText.human(event.downtime());
        };
    StringBuilder text = new StringBuilder(headline).append("\n\n");
    line(text, "Service", event.service());
    line(text, "Kind", event.kind().name());
    if (event.lastError() != null) {
      line(text, "Last error", outside(event.lastError()));
    }
    if (event.resolution() != null) {
      line(text, "Resolution", outside(event.resolution()));
    }
    line(
        text,
        "Opened at",
        String.valueOf(event.openedAt() != null ? event.openedAt() : event.occurredAt()));
    if (event.downtime() != null) {
      line(text, "Downtime", AlertText.human(event.downtime()));
    }
    line(text, "Occurred at", event.occurredAt().toString());
    line(text, "Incident", event.incidentId().toString());
    line(text, "Event", event.eventId().toString());
    if (links.present()) {
      line(text, "Status page", links.statusPage());
      line(text, "Service API", links.service(event.service()));
    }
    return text.toString();
  }

  private static void line(StringBuilder text, String label, String value) {
    text.append(label).append(": ").append(value).append('\n');
  }

  /** One line of outside text: no control character, no line break, bounded. */
  private static String outside(String text) {
    return SafeText.text(text, 2000);
  }
}
