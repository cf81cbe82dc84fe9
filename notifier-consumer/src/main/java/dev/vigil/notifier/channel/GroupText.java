package dev.vigil.notifier.channel;

import java.util.ArrayList;
import java.util.List;

/**
 * The words of a grouped message, the same on every channel: a headline ("37 services DOWN: api,
 * auth, billing … (+34)" for the first message, "3 more DOWN, 12 RECOVERED; still down: …" for an
 * update) and one line per service, at most {@code max} of them. Plain text, not escaped.
 */
final class GroupText {
  /** Services named in a headline before the rest is counted. */
  static final int HEADLINE_NAMES = 3;

  /** Longest last error quoted per service in a grouped message. */
  static final int MAX_ERROR = 200;

  private GroupText() {}

  static String headline(GroupMessage m) {
    List<String> parts = new ArrayList<>();
    if (!m.down().isEmpty()) {
      parts.add(
          m.first()
              ? m.down().size()
                  + (m.down().size() == 1 ? " service DOWN: " : " services DOWN: ")
                  + names(m.down().stream().map(GroupMessage.Down::service).toList())
              : m.down().size() + " more DOWN");
    }
    if (!m.recovered().isEmpty()) {
      parts.add(m.recovered().size() + " RECOVERED");
    }
    String head = String.join(", ", parts);
    if (m.first() && !m.down().isEmpty()) {
      return head;
    }
    String tail =
        m.allRecovered()
            ? "all recovered"
            : "still down: "
                + names(m.stillDown().stream().map(GroupMessage.Down::service).toList());
    return head.isEmpty() ? tail : head + "; " + tail;
  }

  /** {@code a, b, c … (+4)}: the first {@value #HEADLINE_NAMES} names, then how many more. */
  static String names(List<String> services) {
    if (services.size() <= HEADLINE_NAMES) {
      return String.join(", ", services);
    }
    return String.join(", ", services.subList(0, HEADLINE_NAMES))
        + " … (+"
        + (services.size() - HEADLINE_NAMES)
        + ")";
  }

  /** A last error, shortened for a list of many services. */
  static String error(String error) {
    if (error == null) {
      return null;
    }
    return error.length() <= MAX_ERROR ? error : error.substring(0, MAX_ERROR - 1) + "…";
  }

  /** How many of the message's services (down, then recovered) fit in {@code max} lines. */
  static int named(GroupMessage m) {
    return Math.min(m.max(), m.down().size() + m.recovered().size());
  }
}
