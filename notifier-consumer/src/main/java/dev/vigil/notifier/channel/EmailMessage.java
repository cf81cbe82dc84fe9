package dev.vigil.notifier.channel;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One plain-text mail to send, built by {@link EmailChannel#message} (no I/O). Every value is safe
 * as a header as it is: addresses and the subject prefix were checked at start, the rest is made
 * from normalized service names, kinds and ids; text from outside appears only in the body,
 * escaped.
 *
 * @param messageId {@code <event-id@domain-of-from>}: a repeated send of the same event carries the
 *     same id, so a mail system or reader can recognise it
 * @param headers further headers ({@code References}, {@code X-Vigil-…}, {@code Auto-Submitted})
 */
public record EmailMessage(
    String from,
    List<String> to,
    String subject,
    String body,
    String messageId,
    Map<String, String> headers) {
  public EmailMessage {
    Objects.requireNonNull(from, "from");
    to = List.copyOf(to);
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(messageId, "messageId");
    headers = Map.copyOf(headers);
  }
}
