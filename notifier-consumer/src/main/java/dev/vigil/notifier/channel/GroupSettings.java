package dev.vigil.notifier.channel;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.kit.SafeText;
import dev.vigil.kit.Setting;
import java.time.Duration;
import java.util.Iterator;
import java.util.Set;

/**
 * How a Slack, PagerDuty or email channel groups transitions ({@code group: {wait: 10s, interval:
 * 1m, max: 100}}, or {@code group: off}): the first transition that finds no open group opens one
 * and waits {@code wait} for others to join; later transitions of the open group go out as one
 * update per {@code interval}; a message names at most {@code max} services individually and counts
 * the rest.
 *
 * @param enabled false: one message per transition (as the signed webhook)
 * @param waitFor the routes file's {@code wait}: how long a new group waits for others to join
 */
public record GroupSettings(boolean enabled, Duration waitFor, Duration interval, int max) {
  /** The default of Slack, PagerDuty and email channels. */
  public static final GroupSettings DEFAULT =
      new GroupSettings(true, Duration.ofSeconds(10), Duration.ofMinutes(1), 100);

  /** One message per transition. */
  public static final GroupSettings OFF =
      new GroupSettings(false, DEFAULT.waitFor, DEFAULT.interval, DEFAULT.max);

  /** The most services one message may name individually. */
  static final int MAX_NAMED = 1000;

  static final Set<String> FIELDS = Set.of("wait", "interval", "max");

  private static final Setting<Duration> WAIT =
      Setting.duration("GROUP_WAIT", "10s").range("1ms", "1h");
  private static final Setting<Duration> INTERVAL =
      Setting.duration("GROUP_INTERVAL", "1m").range("1ms", "24h");

  public GroupSettings {
    if (waitFor == null
        || waitFor.isNegative()
        || waitFor.isZero()
        || waitFor.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException("wait must be more than 0 and at most 1h");
    }
    if (interval == null
        || interval.isNegative()
        || interval.isZero()
        || interval.compareTo(Duration.ofHours(24)) > 0) {
      throw new IllegalArgumentException("interval must be more than 0 and at most 24h");
    }
    if (max < 1 || max > MAX_NAMED) {
      throw new IllegalArgumentException("max must be 1 to " + MAX_NAMED);
    }
  }

  /**
   * Parses a channel's {@code group} field: absent is {@link #DEFAULT}, {@code off} (or {@code
   * false}) turns grouping off, an object sets any of {@code wait}, {@code interval}, {@code max}.
   *
   * @throws IllegalArgumentException naming {@code where} and the field
   */
  static GroupSettings parse(JsonNode node, String where) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return DEFAULT;
    }
    if ((node.isTextual() && node.asText().strip().equals("off"))
        || (node.isBoolean() && !node.asBoolean())) {
      return OFF;
    }
    if (!node.isObject()) {
      throw new IllegalArgumentException(
          where + ": field 'group': must be off or {wait: 10s, interval: 1m, max: 100}");
    }
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw new IllegalArgumentException(
            where
                + ": field 'group."
                + SafeText.text(name, 40)
                + "': unknown (known: "
                + FIELDS
                + ")");
      }
    }
    Duration wait = duration(node, "wait", WAIT, DEFAULT.waitFor, where, "1ms to 1h");
    Duration interval = duration(node, "interval", INTERVAL, DEFAULT.interval, where, "1ms to 24h");
    int max = DEFAULT.max;
    JsonNode value = node.get("max");
    if (value != null && !value.isNull()) {
      if (!value.canConvertToInt() || !value.isIntegralNumber()) {
        throw new IllegalArgumentException(
            where + ": field 'group.max': must be a whole number from 1 to " + MAX_NAMED);
      }
      max = value.asInt();
      if (max < 1 || max > MAX_NAMED) {
        throw new IllegalArgumentException(
            where + ": field 'group.max': must be a whole number from 1 to " + MAX_NAMED);
      }
    }
    return new GroupSettings(true, wait, interval, max);
  }

  private static Duration duration(
      JsonNode node,
      String field,
      Setting<Duration> setting,
      Duration fallback,
      String where,
      String range) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return fallback;
    }
    String problem = where + ": field 'group." + field + "': must be a duration from " + range;
    if (!value.isTextual()) {
      throw new IllegalArgumentException(problem + ", e.g. 10s");
    }
    try {
      return setting.parse(value.asText());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(problem + ", e.g. 10s");
    }
  }
}
