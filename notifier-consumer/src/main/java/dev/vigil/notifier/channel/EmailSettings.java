package dev.vigil.notifier.channel;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.kit.SafeText;
import dev.vigil.kit.SecretFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads and checks an {@code email} channel of the routes file. Every value that ends up in a mail
 * header is checked here, so nothing from the file can add a header or a recipient: addresses are
 * bare {@code local@domain} (no display names, comments, NUL, control characters or line breaks),
 * the subject prefix has no control characters. The password comes only from a file and is never
 * part of a message.
 */
final class EmailSettings {
  /** The fields an email channel may have. */
  static final Set<String> FIELDS =
      Set.of(
          "type",
          "host",
          "port",
          "tls",
          "username",
          "passwordFile",
          "caFile",
          "from",
          "to",
          "subjectPrefix",
          "rateLimit",
          "group");

  /** At most this many recipients per channel. */
  static final int MAX_TO = 50;

  private static final Pattern HOST =
      Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?");
  private static final Pattern LOCAL = Pattern.compile("[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+");
  private static final Pattern LABEL =
      Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?");

  private EmailSettings() {}

  static EmailChannel parse(String name, JsonNode node, PublicLinks links) {
    String where = "channel '" + name + "'";
    String host = required(node, "host", where);
    if (!HOST.matcher(host).matches() || host.contains("..")) {
      throw new IllegalArgumentException(
          where + ": field 'host': must be a host name or IPv4 address (letters, digits, . and -)");
    }
    String tlsText = text(node, "tls", "starttls", where).toLowerCase(Locale.ROOT);
    EmailChannel.Tls tls =
        switch (tlsText) {
          case "starttls" -> EmailChannel.Tls.STARTTLS;
          case "tls" -> EmailChannel.Tls.TLS;
          case "none" -> EmailChannel.Tls.NONE;
          default ->
              throw new IllegalArgumentException(
                  where + ": field 'tls': must be starttls (default), tls or none");
        };
    int port = port(node, tls, where);
    String username = text(node, "username", null, where);
    if (username != null && (username.length() > 200 || hasControl(username))) {
      throw new IllegalArgumentException(
          where + ": field 'username': at most 200 characters, no control characters");
    }
    String passwordFile = text(node, "passwordFile", null, where);
    if ((username == null) != (passwordFile == null)) {
      throw new IllegalArgumentException(
          where
              + ": field '"
              + (username == null ? "username" : "passwordFile")
              + "': username and passwordFile go together (or neither, without authentication)");
    }
    if (passwordFile != null && tls == EmailChannel.Tls.NONE) {
      throw new IllegalArgumentException(
          where + ": field 'passwordFile': never sent over an unencrypted connection (tls: none)");
    }
    String password = null;
    if (passwordFile != null) {
      String path = passwordFile.startsWith("file:") ? passwordFile.substring(5) : passwordFile;
      password = SecretFile.read(where + ": field 'passwordFile'", Path.of(path)).strip();
      if (password.isEmpty() || hasControl(password)) {
        throw new IllegalArgumentException(
            where + ": field 'passwordFile': the file must hold one line, the password");
      }
    }
    List<X509Certificate> trusted = trusted(text(node, "caFile", null, where), tls, where);
    String from = address(where, "from", required(node, "from", where));
    List<String> to = recipients(node, where);
    String prefix = text(node, "subjectPrefix", "[Vigil]", where);
    if (prefix.length() > 40 || hasControl(prefix)) {
      throw new IllegalArgumentException(
          where + ": field 'subjectPrefix': at most 40 characters, no control characters");
    }
    return new EmailChannel(
        name,
        new EmailChannel.Server(host, port, tls, username, password, trusted),
        from,
        to,
        prefix,
        links);
  }

  /**
   * Why {@code value} is not a bare mail address, or null when it is one. Display names and
   * comments are refused on purpose: they are where header injection usually hides.
   */
  static String problem(String value) {
    if (hasControl(value)) {
      return "contains a control character (NUL, CR, LF, …)";
    }
    if (value.length() > 254) {
      return "longer than 254 characters";
    }
    int at = value.lastIndexOf('@');
    if (at <= 0 || at == value.length() - 1) {
      return "must be local@domain";
    }
    String local = value.substring(0, at);
    String domain = value.substring(at + 1);
    if (local.length() > 64
        || local.startsWith(".")
        || local.endsWith(".")
        || local.contains("..")) {
      return "the part before @ must be 1-64 characters without leading, trailing or double dots";
    }
    for (String atom : local.split("\\.")) {
      if (!LOCAL.matcher(atom).matches()) {
        return "the part before @ may only hold letters, digits, dots and !#$%&'*+/=?^_`{|}~-"
            + " (no spaces, quotes, <>, commas or display names)";
      }
    }
    String[] labels = domain.split("\\.", -1);
    if (labels.length < 2) {
      return "the domain must have a dot (e.g. example.com)";
    }
    for (String label : labels) {
      if (!LABEL.matcher(label).matches()) {
        return "the domain must be letters, digits and - between dots";
      }
    }
    return null;
  }

  private static String address(String where, String field, String value) {
    String problem = problem(value);
    if (problem != null) {
      throw new IllegalArgumentException(
          where + ": field '" + field + "': '" + SafeText.text(value, 80) + "' " + problem);
    }
    return value;
  }

  private static List<String> recipients(JsonNode node, String where) {
    JsonNode list = node.get("to");
    if (list == null || !list.isArray() || list.isEmpty() || list.size() > MAX_TO) {
      throw new IllegalArgumentException(
          where + ": field 'to': must list 1 to " + MAX_TO + " addresses");
    }
    List<String> to = new ArrayList<>();
    for (JsonNode item : list) {
      if (!item.isTextual()) {
        throw new IllegalArgumentException(where + ": field 'to': every item must be a text");
      }
      String address = address(where, "to", item.asText());
      if (to.stream().anyMatch(address::equalsIgnoreCase)) {
        throw new IllegalArgumentException(
            where + ": field 'to': '" + address + "' is listed twice");
      }
      to.add(address);
    }
    return to;
  }

  private static int port(JsonNode node, EmailChannel.Tls tls, String where) {
    JsonNode value = node.get("port");
    if (value == null || value.isNull()) {
      return switch (tls) {
        case STARTTLS -> 587;
        case TLS -> 465;
        case NONE -> 25;
      };
    }
    int port = value.canConvertToInt() && value.isIntegralNumber() ? value.asInt() : -1;
    if (value.isTextual() && value.asText().matches("[0-9]{1,5}")) {
      port = Integer.parseInt(value.asText());
    }
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException(
          where + ": field 'port': must be a number from 1 to 65535");
    }
    return port;
  }

  /** The certificates of a PEM file to trust instead of the JVM's trust store. */
  private static List<X509Certificate> trusted(String caFile, EmailChannel.Tls tls, String where) {
    if (caFile == null) {
      return List.of();
    }
    if (tls == EmailChannel.Tls.NONE) {
      throw new IllegalArgumentException(where + ": field 'caFile': has no use with tls: none");
    }
    List<X509Certificate> certificates = new ArrayList<>();
    try (InputStream in = Files.newInputStream(Path.of(caFile))) {
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        certificates.add((X509Certificate) c);
      }
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new IllegalArgumentException(
          where
              + ": field 'caFile': cannot read PEM certificates ("
              + e.getClass().getSimpleName()
              + ")");
    }
    if (certificates.isEmpty()) {
      throw new IllegalArgumentException(where + ": field 'caFile': holds no certificate");
    }
    return certificates;
  }

  private static boolean hasControl(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029') {
        return true;
      }
    }
    return false;
  }

  private static String required(JsonNode node, String field, String where) {
    String value = text(node, field, null, where);
    if (value == null) {
      throw new IllegalArgumentException(where + ": field '" + field + "': missing");
    }
    return value;
  }

  /**
   * A text field; unlike other channels' texts these are not stripped: a value with a line break or
   * trailing control character is refused, not quietly repaired.
   */
  private static String text(JsonNode node, String field, String fallback, String where) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return fallback;
    }
    if (!value.isTextual() || value.asText().isBlank()) {
      throw new IllegalArgumentException(where + ": field '" + field + "': must be a text");
    }
    String text = value.asText();
    if (hasControl(text)) {
      throw new IllegalArgumentException(
          where + ": field '" + field + "': contains a control character (NUL, CR, LF, …)");
    }
    return text.strip();
  }
}
