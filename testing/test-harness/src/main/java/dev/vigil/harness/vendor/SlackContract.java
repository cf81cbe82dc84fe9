package dev.vigil.harness.vendor;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What Slack documents for an incoming webhook (https://api.slack.com/messaging/webhooks): a JSON
 * object POSTed with {@code Content-Type: application/json} whose {@code text} is a string
 * (required unless blocks are sent; at most 40,000 characters, chat.postMessage truncates longer
 * ones). In {@code text}, Slack's formatting guide
 * (https://api.slack.com/reference/surfaces/formatting, "Escaping text") makes {@code &}, {@code <}
 * and {@code >} control characters: outside markup they must be sent as {@code &amp;}, {@code &lt;}
 * and {@code &gt;}. The only markup Vigil sends is a link {@code <https://…|label>}.
 */
public final class SlackContract {
  private static final Pattern LINK = Pattern.compile("<https?://[^|<>\\s]+\\|[^<>]*>");
  private static final Pattern BARE_AMP = Pattern.compile("&(?!amp;|lt;|gt;)");

  private SlackContract() {}

  /** Every way {@code body} breaks the documented contract; empty when it keeps it. */
  public static List<String> violations(JsonNode body) {
    List<String> problems = new ArrayList<>();
    if (body == null || !body.isObject()) {
      return List.of("body is not a JSON object");
    }
    JsonNode text = body.get("text");
    if (text == null || !text.isTextual() || text.asText().isBlank()) {
      problems.add("text is required and must be a non-empty string");
      return problems;
    }
    if (text.asText().length() > 40_000) {
      problems.add("text is longer than 40,000 characters");
    }
    String outsideLinks = LINK.matcher(text.asText()).replaceAll("");
    if (outsideLinks.contains("<") || outsideLinks.contains(">")) {
      problems.add("text has an unescaped < or > outside link markup");
    }
    if (BARE_AMP.matcher(outsideLinks).find()) {
      problems.add("text has an unescaped &");
    }
    return problems;
  }
}
