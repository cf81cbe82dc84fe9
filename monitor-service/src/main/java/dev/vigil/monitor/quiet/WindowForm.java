package dev.vigil.monitor.quiet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.TextStyle;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a {@link Window} from its written form and writes it back in the same form:
 *
 * <pre>{@code {"days": ["sat", "sun"], "start": "02:00", "length": "4h", "zone": "Europe/Berlin"}}
 * </pre>
 *
 * Days are {@code mon}..{@code sun} (or full English names, any case); start is {@code HH:MM}
 * (00:00-23:59); length is {@code <n>m}, {@code <n>h} or {@code <n>d}, 1m to 7d; zone is an IANA
 * region id (e.g. {@code Europe/Berlin}) or {@code UTC}. Every refusal names the field.
 */
public final class WindowForm {
  static final Set<String> FIELDS = Set.of("days", "start", "length", "zone");
  private static final Pattern START = Pattern.compile("([01]\\d|2[0-3]):([0-5]\\d)");
  private static final Pattern LENGTH = Pattern.compile("(\\d{1,6})(m|h|d)");
  private static final int MAX_TEXT = 64;

  private WindowForm() {}

  /**
   * Parses one window; {@code prefix} is prepended to field names in messages (e.g. {@code
   * "maintenance[0]."}); {@code extra} names fields the caller reads itself (e.g. {@code prefix}).
   */
  public static Window read(JsonNode node, String prefix, Set<String> extra) {
    if (node == null || !node.isObject()) {
      throw new InvalidQuietException(
          prefix.isEmpty() ? "body" : prefix.substring(0, prefix.length() - 1),
          "must be an object with days, start, length and zone");
    }
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name) && !extra.contains(name)) {
        throw new InvalidQuietException(
            prefix + printable(name), "unknown field (known: days, length, start, zone)");
      }
    }
    return new Window(
        days(node.get("days"), prefix + "days"),
        start(text(node, "start", prefix)),
        length(text(node, "length", prefix), prefix + "length"),
        zone(text(node, "zone", prefix), prefix + "zone"));
  }

  /** The written form of {@code window}, which {@link #read} accepts. */
  public static ObjectNode write(Window window) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    var days = node.putArray("days");
    window.days().stream()
        .sorted()
        .forEach(
            d -> days.add(d.getDisplayName(TextStyle.SHORT, Locale.ROOT).toLowerCase(Locale.ROOT)));
    node.put("start", window.start().toString());
    node.put("length", length(window.length()));
    node.put("zone", window.zone().getId());
    return node;
  }

  private static String length(Duration length) {
    if (length.toMinutes() % (24 * 60) == 0) {
      return length.toDays() + "d";
    }
    return length.toMinutes() % 60 == 0 ? length.toHours() + "h" : length.toMinutes() + "m";
  }

  private static Set<DayOfWeek> days(JsonNode value, String field) {
    if (value == null || value.isNull()) {
      throw new InvalidQuietException(field, "is required (e.g. [\"sat\", \"sun\"])");
    }
    if (!value.isArray()) {
      throw new InvalidQuietException(field, "must be a list of days (mon..sun)");
    }
    if (value.isEmpty()) {
      throw new InvalidQuietException(field, "must name at least one day");
    }
    if (value.size() > 7) {
      throw new InvalidQuietException(field, "names more than 7 days");
    }
    EnumSet<DayOfWeek> days = EnumSet.noneOf(DayOfWeek.class);
    for (JsonNode element : value) {
      DayOfWeek day = element.isTextual() ? day(element.asText()) : null;
      if (day == null) {
        throw new InvalidQuietException(
            field, "'" + printable(element.asText()) + "' is not a day (mon..sun)");
      }
      if (!days.add(day)) {
        throw new InvalidQuietException(field, "names " + day + " twice");
      }
    }
    return days;
  }

  private static DayOfWeek day(String raw) {
    String text = raw.strip().toLowerCase(Locale.ROOT);
    for (DayOfWeek day : DayOfWeek.values()) {
      String full = day.name().toLowerCase(Locale.ROOT);
      if (text.equals(full) || text.equals(full.substring(0, 3))) {
        return day;
      }
    }
    return null;
  }

  private static LocalTime start(String[] fieldAndText) {
    Matcher matcher = START.matcher(fieldAndText[1]);
    if (!matcher.matches()) {
      throw new InvalidQuietException(
          fieldAndText[0],
          "must be a time HH:MM from 00:00 to 23:59, was '" + printable(fieldAndText[1]) + "'");
    }
    return LocalTime.of(Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)));
  }

  private static Duration length(String[] fieldAndText, String field) {
    Matcher matcher = LENGTH.matcher(fieldAndText[1].toLowerCase(Locale.ROOT));
    if (!matcher.matches()) {
      throw new InvalidQuietException(
          field,
          "must be a positive length like 90m, 4h or 2d, was '" + printable(fieldAndText[1]) + "'");
    }
    long amount = Long.parseLong(matcher.group(1));
    Duration length =
        switch (matcher.group(2)) {
          case "m" -> Duration.ofMinutes(amount);
          case "h" -> Duration.ofHours(amount);
          default -> Duration.ofDays(amount);
        };
    if (length.compareTo(Window.MIN_LENGTH) < 0 || length.compareTo(Window.MAX_LENGTH) > 0) {
      throw new InvalidQuietException(
          field, "must be between 1m and 7d, was '" + printable(fieldAndText[1]) + "'");
    }
    return length;
  }

  /** An IANA region id or UTC; fixed offsets and abbreviations (CET, EST) are refused. */
  public static ZoneId zone(String[] fieldAndText, String field) {
    String id = fieldAndText[1];
    if (!id.equals("UTC") && !(id.contains("/") && ZoneId.getAvailableZoneIds().contains(id))) {
      throw new InvalidQuietException(
          field, "'" + printable(id) + "' is not an IANA time zone such as Europe/Berlin or UTC");
    }
    return ZoneId.of(id);
  }

  private static String[] text(JsonNode node, String name, String prefix) {
    String field = prefix + name;
    return new String[] {field, text(node.get(name), field)};
  }

  /** A required, short, printable string field. */
  public static String text(JsonNode value, String field) {
    if (value == null || value.isNull()) {
      throw new InvalidQuietException(field, "is required");
    }
    if (!value.isTextual()) {
      throw new InvalidQuietException(field, "must be a string");
    }
    String text = value.asText().strip();
    if (text.isEmpty()) {
      throw new InvalidQuietException(field, "must not be empty");
    }
    if (text.length() > MAX_TEXT) {
      throw new InvalidQuietException(field, "is longer than " + MAX_TEXT + " characters");
    }
    if (!printable(text).equals(text)) {
      throw new InvalidQuietException(field, "contains control characters (NUL, CR, LF, ...)");
    }
    return text;
  }

  /** {@code text} with control characters replaced by '?', cut to 64 characters, for messages. */
  public static String printable(String text) {
    StringBuilder out = new StringBuilder();
    text.codePoints()
        .limit(MAX_TEXT)
        .forEach(c -> out.appendCodePoint(Character.isISOControl(c) ? '?' : c));
    return out.toString();
  }
}
