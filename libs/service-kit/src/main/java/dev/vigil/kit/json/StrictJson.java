package dev.vigil.kit.json;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.vigil.kit.SafeText;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;

/**
 * Reads JSON from outside as a tree, refusing what a lenient reader would let through: bytes that
 * are not UTF-8 (a lenient decoder turns them into U+FFFD and stores them), a byte order mark,
 * anything after the one JSON value (it would ride along unseen), duplicate keys (two readers could
 * see two different values) and lone surrogates (no receiver and no PostgreSQL {@code text} can
 * hold them). NUL and other control characters inside strings are valid JSON and pass here; each
 * field's own check decides whether it may hold them. Never throws anything but {@link
 * InvalidJsonException} for bad input.
 */
public final class StrictJson {
  private StrictJson() {}

  /**
   * The tree of {@code bytes}, read with {@code mapper}'s settings plus the strict ones.
   *
   * @param whole what to call the input as a whole in a refusal ({@code body}, {@code value})
   * @throws InvalidJsonException naming the field ({@code encoding} for bytes that are not UTF-8)
   */
  public static JsonNode read(byte[] bytes, ObjectMapper mapper, String whole) {
    if (bytes == null || bytes.length == 0) {
      throw new InvalidJsonException(whole, "is empty; a JSON value is required");
    }
    String text = utf8(bytes);
    if (text == null) {
      throw new InvalidJsonException(
          notUtf8At(bytes, mapper),
          "is not valid UTF-8 (malformed bytes or an encoded surrogate); text is never repaired");
    }
    if (text.startsWith("\ufeff")) {
      throw new InvalidJsonException(
          "encoding", whole + " starts with a byte order mark (U+FEFF); expected UTF-8 without");
    }
    ObjectReader reader =
        mapper
            .reader()
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .with(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    JsonNode root;
    try {
      root = reader.readTree(text);
    } catch (JsonParseException e) {
      String duplicate = duplicateKey(e);
      if (duplicate != null) {
        throw new InvalidJsonException(duplicate, "appears more than once; give each key once");
      }
      throw new InvalidJsonException(whole, "is not JSON: " + firstLine(e.getOriginalMessage()));
    } catch (IOException e) {
      throw new InvalidJsonException(whole, "is not JSON: " + firstLine(e.getMessage()));
    }
    if (root == null || root.isMissingNode()) {
      throw new InvalidJsonException(whole, "is empty; a JSON value is required");
    }
    String bad = loneSurrogateAt(root, whole);
    if (bad != null) {
      throw new InvalidJsonException(bad, "contains a lone surrogate (not valid Unicode)");
    }
    return root;
  }

  /** Strict UTF-8 decoding; null when the bytes are not valid UTF-8. */
  public static String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /**
   * Where bytes that are not UTF-8 sit: Jackson's byte parser reports malformed UTF-8 inside a
   * string with the parser at that field. {@code encoding} where it cannot tell (an encoded
   * surrogate, which it accepts, or bytes outside any string).
   */
  private static String notUtf8At(byte[] bytes, ObjectMapper mapper) {
    try (JsonParser parser = mapper.createParser(bytes)) {
      while (parser.nextToken() != null) {
        if (parser.currentToken().isScalarValue()
            || parser.currentToken().name().equals("FIELD_NAME")) {
          parser.getText();
        }
      }
    } catch (JsonParseException e) {
      String message = e.getOriginalMessage();
      if (message != null && message.contains("UTF-8")) {
        String path = pathAt(e);
        if (path != null) {
          return path;
        }
      }
    } catch (IOException e) {
      // falls through to the generic name
    }
    return "encoding";
  }

  /** The dotted path of the key a duplicate-detection failure is about, or null. */
  private static String duplicateKey(JsonParseException e) {
    String message = e.getOriginalMessage();
    if (message == null || !message.startsWith("Duplicate field")) {
      return null;
    }
    String path = pathAt(e);
    return path == null ? "body" : path;
  }

  /** The dotted path the parser that threw {@code e} stood at, or null. */
  private static String pathAt(JsonParseException e) {
    Object processor = e.getProcessor();
    if (!(processor instanceof JsonParser parser)) {
      return null;
    }
    Deque<String> segments = new ArrayDeque<>();
    for (JsonStreamContext ctx = parser.getParsingContext(); ctx != null; ctx = ctx.getParent()) {
      if (ctx.inObject() && ctx.getCurrentName() != null) {
        segments.push("." + SafeText.text(ctx.getCurrentName(), 60));
      } else if (ctx.inArray()) {
        segments.push("[" + Math.max(ctx.getCurrentIndex(), 0) + "]");
      }
    }
    String path = String.join("", segments);
    path = path.startsWith(".") ? path.substring(1) : path;
    return path.isEmpty() ? null : path;
  }

  /** The path of the first field name or string holding a lone surrogate, or null. */
  private static String loneSurrogateAt(JsonNode root, String whole) {
    Deque<Map.Entry<String, JsonNode>> todo = new ArrayDeque<>();
    todo.push(Map.entry("", root));
    while (!todo.isEmpty()) {
      Map.Entry<String, JsonNode> next = todo.pop();
      String path = next.getKey();
      JsonNode node = next.getValue();
      if (node.isTextual() && SafeText.hasLoneSurrogate(node.textValue())) {
        return path.isEmpty() ? whole : path;
      }
      if (node.isObject()) {
        Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
        while (fields.hasNext()) {
          Map.Entry<String, JsonNode> field = fields.next();
          String name = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
          if (SafeText.hasLoneSurrogate(field.getKey())) {
            // the key itself cannot be shown; name where it sits
            return path.isEmpty() ? whole : path;
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
    String line = newline < 0 ? message : message.substring(0, newline);
    return SafeText.text(line, 200);
  }
}
