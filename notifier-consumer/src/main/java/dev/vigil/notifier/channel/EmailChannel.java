package dev.vigil.notifier.channel;

import dev.vigil.contract.AlertEvent;
import dev.vigil.kit.SafeText;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Email over SMTP: one plain-text mail per event to a fixed list of addresses. The subject is
 * {@code <prefix> DOWN|RECOVERED|REMINDER <service>}; the body names the service, the kind, the
 * last error, when the incident opened, the downtime, the incident and event ids and the monitor's
 * links when known. The {@code Message-ID} is derived from the event id, {@code References} from
 * the incident id (mail readers thread an incident's mails). Unlike the HTTP channels this one
 * builds an {@link EmailMessage}, not a {@link ChannelRequest}: the delivery loop sends it over
 * SMTP with the same claims, retries and dead state (SMTP 4xx and connection failures retried, 5xx
 * permanent). The password is never logged: {@link Server#toString} leaves it out.
 */
public final class EmailChannel implements Channel {
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

  /** The mail announcing {@code event}. */
  public EmailMessage message(AlertEvent event) {
    String domain = from.substring(from.lastIndexOf('@') + 1);
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("References", "<" + event.incidentId() + "@" + domain + ">");
    headers.put("Auto-Submitted", "auto-generated");
    headers.put("X-Vigil-Event-Id", event.eventId().toString());
    headers.put("X-Vigil-Incident-Id", event.incidentId().toString());
    headers.put("X-Vigil-Kind", event.kind().name());
    return new EmailMessage(
        from, to, subject(event), body(event), "<" + event.eventId() + "@" + domain + ">", headers);
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
