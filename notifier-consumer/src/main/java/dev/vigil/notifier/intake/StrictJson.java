package dev.vigil.notifier.intake;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.InvalidAlertEventException;
import dev.vigil.kit.SafeText;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;

/**
 * The checks a record value must pass before the contract's reader sees it, for what that reader
 * tolerates but the notifier must not pass on: not UTF-8, a byte order mark, anything after the
 * JSON object (it would otherwise ride along unseen), duplicate keys (two readers could see two
 * different events), and lone surrogates (not Unicode: no receiver and no PostgreSQL text can hold
 * them). NUL and other control characters inside JSON strings are valid JSON and are allowed here;
 * the canonical JSON written for delivery escapes them.
 */
final class StrictJson {
  private static final ObjectReader READER =
      AlertEventJson.mapper()
          .reader()
          .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .with(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private StrictJson() {}

  /**
   * @throws InvalidAlertEventException naming the field and the reason
   */
  static void check(byte[] value) {
    if (value.length == 0) {
      throw new InvalidAlertEventException("value", "value is empty");
    }
    if (value.length > AlertEventJson.MAX_PAYLOAD_BYTES) {
      throw new InvalidAlertEventException(
          "value",
          "payload is " + value.length + " bytes, more than " + AlertEventJson.MAX_PAYLOAD_BYTES);
    }
    String text = Checked.utf8(value);
    if (text == null) {
      throw new InvalidAlertEventException(
          "encoding", "value is not valid UTF-8 (malformed bytes or an encoded surrogate)");
    }
    if (text.startsWith("\ufeff")) {
      throw new InvalidAlertEventException(
          "encoding", "value starts with a byte order mark (U+FEFF); expected UTF-8 JSON without");
    }
    JsonNode root;
    try {
      root = READER.readTree(text);
    } catch (IOException e) {
      throw new InvalidAlertEventException("value", "not JSON: " + firstLine(e.getMessage()));
    }
    String bad = loneSurrogateAt(root);
    if (bad != null) {
      throw new InvalidAlertEventException(bad, "contains a lone surrogate (not valid Unicode)");
    }
  }

  /** The path of the first field name or string holding a lone surrogate, or null. */
  private static String loneSurrogateAt(JsonNode root) {
    Deque<Map.Entry<String, JsonNode>> todo = new ArrayDeque<>();
    todo.push(Map.entry("value", root));
    while (!todo.isEmpty()) {
      Map.Entry<String, JsonNode> next = todo.pop();
      String path = next.getKey();
      JsonNode node = next.getValue();
      if (node == null) {
        continue;
      }
      if (node.isTextual() && SafeText.hasLoneSurrogate(node.textValue())) {
        return path;
      }
      if (node.isObject()) {
        Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
        while (fields.hasNext()) {
          Map.Entry<String, JsonNode> field = fields.next();
          String name = path.equals("value") ? field.getKey() : path + "." + field.getKey();
          if (SafeText.hasLoneSurrogate(field.getKey())) {
            return name;
          }
          todo.push(Map.entry(name, field.getValue()));
        }
      } else if (node.isArray()) {
        for (int i = 0; i < node.size(); i++) {
          todo.push(Map.entry(path + "[" + i + "]", node.get(i)));
        }
      }
    }
    return null;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
