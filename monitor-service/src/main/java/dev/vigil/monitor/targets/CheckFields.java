package dev.vigil.monitor.targets;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The fields of a target beyond the status code ({@link Checks}): read from a definition with the
 * same messages as every other field, and written back in the same form (the database stores that
 * form, so what is read back passes the same validation). Bounds keep a hostile definition from
 * making the monitor send or keep large amounts of data.
 */
final class CheckFields {
  static final Set<String> NAMES =
      Set.of(
          "headers",
          "body",
          "maxLatency",
          "bodyContains",
          "bodyNotContains",
          "jsonEquals",
          "tlsExpiryDays",
          "expectAddress");
  static final int MAX_HEADERS = 32;
  static final int MAX_HEADER_VALUE = 8 * 1024;
  static final int MAX_REQUEST_BODY = 64 * 1024;
  static final int MAX_CONDITIONS = 16;
  static final int MAX_CONDITION_TEXT = 1024;
  static final int MAX_POINTER = 512;
  static final int MAX_TLS_EXPIRY_DAYS = 365;

  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}");
  // Headers the JDK client sets itself and refuses to take from the caller.
  private static final Set<String> RESTRICTED =
      Set.of("connection", "content-length", "expect", "host", "upgrade");
  private static final Set<String> BODY_METHODS = Set.of("POST", "PUT", "PATCH");
  // An IPv4 octet is 0-255: anything else would make InetAddress look the text up as a name.
  private static final String OCTET = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
  private static final Pattern IP_LITERAL =
      Pattern.compile(OCTET + "(\\." + OCTET + "){3}|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

  private final TargetParser parser;
  private final JsonNode node;
  private final boolean filesAllowed;

  CheckFields(TargetParser parser, JsonNode node, boolean filesAllowed) {
    this.parser = parser;
    this.node = node;
    this.filesAllowed = filesAllowed;
  }

  Checks read(TargetKind kind, String method, java.net.URI url, Duration timeout) {
    Map<String, HeaderValue> headers = headers();
    String body = body(method);
    Duration maxLatency = parser.duration("maxLatency", null, Duration.ofMillis(1), timeout);
    List<String> contains = strings("bodyContains");
    List<String> notContains = strings("bodyNotContains");
    List<JsonExpectation> json = json();
    Integer tlsExpiryDays = tlsExpiryDays();
    List<InetAddress> addresses = addresses();
    only(kind, TargetKind.HTTP, "headers", !headers.isEmpty());
    only(kind, TargetKind.HTTP, "body", body != null);
    only(kind, TargetKind.HTTP, "bodyContains", !contains.isEmpty());
    only(kind, TargetKind.HTTP, "bodyNotContains", !notContains.isEmpty());
    only(kind, TargetKind.HTTP, "jsonEquals", !json.isEmpty());
    only(kind, TargetKind.HTTP, "tlsExpiryDays", tlsExpiryDays != null);
    only(kind, TargetKind.DNS, "expectAddress", !addresses.isEmpty());
    if (kind == TargetKind.PUSH && maxLatency != null) {
      throw parser.invalid("maxLatency", "a push target is not probed, so it has no latency");
    }
    if ("HEAD".equals(method)
        && (!contains.isEmpty() || !notContains.isEmpty() || !json.isEmpty())) {
      throw parser.invalid("method", "a HEAD response has no body to check; use GET");
    }
    if (tlsExpiryDays != null && !"https".equalsIgnoreCase(url.getScheme())) {
      throw parser.invalid("tlsExpiryDays", "needs an https:// url");
    }
    return new Checks(
        headers, body, maxLatency, contains, notContains, json, tlsExpiryDays, addresses);
  }

  private void only(TargetKind kind, TargetKind allowed, String field, boolean present) {
    if (present && kind != allowed) {
      throw parser.invalid(
          field, "applies to " + allowed.column() + " targets only, not " + kind.column());
    }
  }

  private Map<String, HeaderValue> headers() {
    JsonNode value = node.get("headers");
    if (value == null || value.isNull()) {
      return Map.of();
    }
    if (!value.isObject()) {
      throw parser.invalid("headers", "must be a mapping of header name to value");
    }
    if (value.size() > MAX_HEADERS) {
      throw parser.invalid("headers", "at most " + MAX_HEADERS + " headers, was " + value.size());
    }
    Map<String, HeaderValue> headers = new LinkedHashMap<>();
    Set<String> seen = new java.util.HashSet<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      String name = entry.getKey();
      if (!TOKEN.matcher(name).matches()) {
        throw parser.invalid("headers", "'" + printable(name) + "' is not a valid header name");
      }
      String lower = name.toLowerCase(Locale.ROOT);
      if (RESTRICTED.contains(lower)) {
        throw parser.invalid("headers." + name, "is set by the monitor and cannot be overridden");
      }
      if (!seen.add(lower)) {
        throw parser.invalid("headers." + name, "is declared twice (names ignore case)");
      }
      headers.put(name, headerValue("headers." + name, entry.getValue()));
    }
    return headers;
  }

  private HeaderValue headerValue(String field, JsonNode value) {
    if (value.isTextual()) {
      String text = value.asText();
      if (text.length() > MAX_HEADER_VALUE) {
        throw parser.invalid(field, "longer than " + MAX_HEADER_VALUE + " characters");
      }
      if (!HeaderValue.isAllowed(text)) {
        throw parser.invalid(field, "contains control characters (CR, LF, NUL, ...)");
      }
      return HeaderValue.inline(text);
    }
    if (!value.isObject() || value.size() != 1 || !value.has("valueFile")) {
      throw parser.invalid(field, "must be a string or {valueFile: /absolute/path}");
    }
    if (!filesAllowed) {
      throw parser.invalid(
          field + ".valueFile",
          "is only allowed in the targets file (the API must not make the monitor read its"
              + " host's files)");
    }
    JsonNode file = value.get("valueFile");
    if (!file.isTextual() || file.asText().isBlank()) {
      throw parser.invalid(field + ".valueFile", "must be a path");
    }
    String raw = file.asText();
    if (raw.length() > 4096 || !printable(raw).equals(raw)) {
      throw parser.invalid(field + ".valueFile", "is not a usable path");
    }
    try {
      Path path = Path.of(raw);
      if (!path.isAbsolute()) {
        throw parser.invalid(field + ".valueFile", "must be an absolute path");
      }
      return HeaderValue.fromFile(path.normalize());
    } catch (InvalidPathException e) {
      throw parser.invalid(field + ".valueFile", "is not a usable path");
    }
  }

  private String body(String method) {
    JsonNode value = node.get("body");
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isTextual()) {
      throw parser.invalid("body", "must be a string (write JSON as a quoted string)");
    }
    String body = value.asText();
    if (body.length() > MAX_REQUEST_BODY) {
      throw parser.invalid("body", "longer than " + MAX_REQUEST_BODY + " characters");
    }
    if (body.indexOf('\0') >= 0) {
      throw parser.invalid("body", "contains a NUL character");
    }
    if (!BODY_METHODS.contains(method)) {
      throw parser.invalid("body", "is sent with POST, PUT or PATCH only, not " + method);
    }
    return body;
  }

  private List<String> strings(String field) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return List.of();
    }
    List<JsonNode> elements = new ArrayList<>();
    if (value.isArray()) {
      value.forEach(elements::add);
    } else {
      elements.add(value);
    }
    if (elements.isEmpty() || elements.size() > MAX_CONDITIONS) {
      throw parser.invalid(field, "must list 1 to " + MAX_CONDITIONS + " strings");
    }
    List<String> strings = new ArrayList<>();
    for (JsonNode element : elements) {
      if (!element.isTextual() || element.asText().isEmpty()) {
        throw parser.invalid(field, "must be a non-empty string or a list of them");
      }
      strings.add(condition(field, element.asText()));
    }
    return strings;
  }

  private String condition(String field, String text) {
    if (text.length() > MAX_CONDITION_TEXT) {
      throw parser.invalid(field, "longer than " + MAX_CONDITION_TEXT + " characters");
    }
    if (text.indexOf('\0') >= 0) {
      throw parser.invalid(field, "contains a NUL character");
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isISOControl(c) && c != '\t' && c != '\n' && c != '\r') {
        throw parser.invalid(
            field,
            String.format(
                "contains the control character U+%04X; only tab, CR and LF are accepted",
                (int) c));
      }
    }
    return text;
  }

  private List<JsonExpectation> json() {
    JsonNode value = node.get("jsonEquals");
    if (value == null || value.isNull()) {
      return List.of();
    }
    if (!value.isObject() || value.isEmpty() || value.size() > MAX_CONDITIONS) {
      throw parser.invalid(
          "jsonEquals",
          "must map 1 to " + MAX_CONDITIONS + " JSON pointers to values, e.g. {/status: UP}");
    }
    List<JsonExpectation> json = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      JsonPointer pointer = pointer(entry.getKey());
      JsonNode expected = entry.getValue();
      if (!expected.isValueNode()) {
        throw parser.invalid(
            "jsonEquals." + entry.getKey(), "must be a string, number, boolean or null");
      }
      if (expected.isTextual()) {
        condition("jsonEquals." + entry.getKey(), expected.asText());
      }
      json.add(new JsonExpectation(pointer, expected));
    }
    return json;
  }

  private JsonPointer pointer(String text) {
    String shown = printable(text.length() > 60 ? text.substring(0, 60) + "…" : text);
    if (text.length() > MAX_POINTER || !printable(text).equals(text)) {
      throw parser.invalid("jsonEquals", "'" + shown + "' is not a usable JSON pointer");
    }
    if (!text.isEmpty() && text.charAt(0) != '/') {
      throw parser.invalid(
          "jsonEquals", "'" + shown + "' is not a JSON pointer: it must start with '/'");
    }
    for (int i = text.indexOf('~'); i >= 0; i = text.indexOf('~', i + 1)) {
      if (i + 1 >= text.length() || (text.charAt(i + 1) != '0' && text.charAt(i + 1) != '1')) {
        throw parser.invalid(
            "jsonEquals", "'" + shown + "' is not a JSON pointer: '~' must be followed by 0 or 1");
      }
    }
    try {
      return JsonPointer.compile(text);
    } catch (IllegalArgumentException e) {
      throw parser.invalid("jsonEquals", "'" + shown + "' is not a JSON pointer");
    }
  }

  private Integer tlsExpiryDays() {
    JsonNode value = node.get("tlsExpiryDays");
    if (value == null || value.isNull()) {
      return null;
    }
    return parser.integer("tlsExpiryDays", 0, 1, MAX_TLS_EXPIRY_DAYS);
  }

  private List<InetAddress> addresses() {
    List<InetAddress> addresses = new ArrayList<>();
    for (String text : strings("expectAddress")) {
      if (!IP_LITERAL.matcher(text).matches()) {
        throw parser.invalid(
            "expectAddress", "'" + printable(text) + "' is not an IPv4 or IPv6 address");
      }
      try {
        // A literal: parsed, never looked up.
        addresses.add(InetAddress.getByName(text));
      } catch (UnknownHostException e) {
        throw parser.invalid(
            "expectAddress", "'" + printable(text) + "' is not an IPv4 or IPv6 address");
      }
    }
    return addresses;
  }

  /** {@code text} with control characters replaced by '?', to quote it in a message. */
  static String printable(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      out.append(c < 0x20 || c == 0x7f ? '?' : c);
    }
    return out.toString();
  }
}
