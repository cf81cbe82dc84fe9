package dev.vigil.receiver;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.vigil.contract.ServiceNames;
import dev.vigil.kit.db.Database;
import dev.vigil.kit.http.HttpJson;
import dev.vigil.kit.json.StrictJson;
import java.io.ByteArrayOutputStream;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /received?service=&after=&limit=}: what the receiver stored, oldest first, for an
 * outsider checking what arrived (the compose check reads it). Each notification says how many
 * times it was delivered; more than 1 means the sender repeated it.
 *
 * <p>The query string is hostile input: unknown or repeated parameters, bad percent escapes,
 * invalid UTF-8, control characters and out-of-range numbers are a 400 naming the parameter.
 */
final class ReceivedQuery {
  static final int DEFAULT_LIMIT = 100;
  static final int MAX_LIMIT = 1000;

  private static final String SELECT =
      """
      select seq, webhook_id, event_id, service, kind, deliveries, received_at
        from received_webhook
       where seq > ? and (?::text is null or service = ?)
       order by seq
       limit ?
      """;

  /** A parameter that cannot be used; the message names it and the reason. */
  static final class BadQuery extends Exception {
    final String field;

    BadQuery(String field, String reason) {
      super(reason);
      this.field = field;
    }
  }

  record Notification(
      long seq,
      String webhookId,
      String eventId,
      String service,
      String kind,
      int deliveries,
      String receivedAt) {}

  /** One page: {@code next} is the {@code after} of the following page, null on the last one. */
  record Page(List<Notification> notifications, Long next) {}

  private final String service;
  private final long after;
  private final int limit;

  private ReceivedQuery(String service, long after, int limit) {
    this.service = service;
    this.after = after;
    this.limit = limit;
  }

  static ReceivedQuery parse(String rawQuery) throws BadQuery {
    Map<String, String> params = new LinkedHashMap<>();
    if (rawQuery != null && !rawQuery.isEmpty()) {
      for (String pair : rawQuery.split("&", -1)) {
        int eq = pair.indexOf('=');
        String name = decode("query", eq < 0 ? pair : pair.substring(0, eq));
        if (!List.of("service", "after", "limit").contains(name)) {
          throw new BadQuery(printable(name), "unknown parameter (service, after, limit)");
        }
        String value = decode(name, eq < 0 ? "" : pair.substring(eq + 1));
        if (params.put(name, value) != null) {
          throw new BadQuery(name, "given more than once");
        }
      }
    }
    String service = params.get("service");
    if (service != null && !ServiceNames.isValid(service)) {
      throw new BadQuery("service", "must be a service name " + ServiceNames.PATTERN.pattern());
    }
    long after = number(params, "after", 0, Long.MAX_VALUE, 0);
    int limit = (int) number(params, "limit", 1, MAX_LIMIT, DEFAULT_LIMIT);
    return new ReceivedQuery(service, after, limit);
  }

  Page run(Database database) {
    return database.inTransaction(
        "reading received webhooks",
        c -> {
          List<Notification> rows = new ArrayList<>();
          try (PreparedStatement select = c.prepareStatement(SELECT)) {
            select.setLong(1, after);
            select.setString(2, service);
            select.setString(3, service);
            select.setInt(4, limit + 1);
            try (ResultSet r = select.executeQuery()) {
              while (r.next()) {
                rows.add(
                    new Notification(
                        r.getLong(1),
                        r.getString(2),
                        r.getString(3),
                        r.getString(4),
                        r.getString(5),
                        r.getInt(6),
                        r.getTimestamp(7).toInstant().toString()));
              }
            }
          }
          boolean more = rows.size() > limit;
          List<Notification> page = more ? rows.subList(0, limit) : rows;
          return new Page(List.copyOf(page), more ? page.getLast().seq() : null);
        });
  }

  static String json(Object value) {
    try {
      return HttpJson.mapper().writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write received page", e);
    }
  }

  private static long number(Map<String, String> params, String name, long min, long max, long dflt)
      throws BadQuery {
    String value = params.get(name);
    if (value == null) {
      return dflt;
    }
    if (!value.matches("[0-9]{1,19}")) {
      throw new BadQuery(name, "must be a whole number between " + min + " and " + max);
    }
    try {
      long n = Long.parseLong(value);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException tooLarge) {
      // falls through to the range message
    }
    throw new BadQuery(name, "must be a whole number between " + min + " and " + max);
  }

  /** Percent-decoding that refuses what URLDecoder would silently replace or pass on. */
  private static String decode(String field, String raw) throws BadQuery {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char ch = raw.charAt(i);
      if (ch == '%') {
        if (i + 2 >= raw.length()) {
          throw new BadQuery(field, "has a truncated percent escape");
        }
        int hi = Character.digit(raw.charAt(i + 1), 16);
        int lo = Character.digit(raw.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          throw new BadQuery(field, "has a bad percent escape");
        }
        bytes.write(hi << 4 | lo);
        i += 2;
      } else if (ch < 0x21 || ch > 0x7e) {
        throw new BadQuery(field, "has a character that must be percent-encoded");
      } else {
        bytes.write(ch == '+' ? ' ' : ch);
      }
    }
    String text = StrictJson.utf8(bytes.toByteArray());
    if (text == null) {
      throw new BadQuery(field, "is not valid UTF-8");
    }
    if (text.codePoints().anyMatch(Character::isISOControl)) {
      throw new BadQuery(field, "has a control character");
    }
    return text;
  }

  private static String printable(String name) {
    return name.length() > 40 ? name.substring(0, 40) + "…" : name;
  }
}
