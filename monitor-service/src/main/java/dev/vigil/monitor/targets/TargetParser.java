package dev.vigil.monitor.targets;

import static dev.vigil.monitor.targets.CheckFields.printable;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.contract.ServiceNames;
import dev.vigil.monitor.quiet.InvalidQuietException;
import dev.vigil.monitor.quiet.Window;
import dev.vigil.monitor.quiet.WindowForm;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns one target definition (a YAML mapping or a JSON object) into a {@link TargetSpec}, or an
 * {@link InvalidTargetException} naming the source, the target and the field. Unknown fields are
 * errors: a typo such as {@code failureTreshold} must not silently fall back to a default.
 */
public final class TargetParser {
  public static final int DEFAULT_FAILURE_THRESHOLD = 3;
  public static final int DEFAULT_RECOVERY_THRESHOLD = 1;
  static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
  static final Duration MIN_INTERVAL = Duration.ofSeconds(1);
  static final Duration MAX_INTERVAL = Duration.ofHours(1);
  static final Duration MIN_TIMEOUT = Duration.ofMillis(100);
  static final Duration MAX_TIMEOUT = Duration.ofSeconds(60);
  static final Duration MIN_HEARTBEAT = Duration.ofSeconds(1);
  static final Duration MAX_HEARTBEAT = Duration.ofDays(7);
  static final Duration MIN_REMIND_EVERY = Duration.ofMinutes(1);
  static final Duration MAX_REMIND_EVERY = Duration.ofDays(7);
  static final int MAX_WINDOWS = 16;

  private static final Set<String> BASE_FIELDS =
      Set.of(
          "name",
          "type",
          "url",
          "method",
          "interval",
          "timeout",
          "connectTimeout",
          "acceptedStatus",
          "failureThreshold",
          "recoveryThreshold",
          "followRedirects",
          "enabled",
          "heartbeat",
          "remindEvery",
          "maintenance",
          "locations",
          "quorum",
          "retryInterval",
          "dependsOn",
          "dependencySettle",
          "slo",
          "sloWindow");

  /** Every field a target definition may have, in the targets file and the API. */
  static final Set<String> FIELDS = union(BASE_FIELDS, CheckFields.NAMES);

  private static final Set<String> METHODS =
      Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");
  private static final Pattern DURATION = Pattern.compile("(\\d{1,9})\\s*(ms|s|m|h)");

  private final String source;
  private final String label;
  private final JsonNode node;
  private final boolean filesAllowed;

  private TargetParser(String source, String label, JsonNode node, boolean filesAllowed) {
    this.source = source;
    this.label = label;
    this.node = node;
    this.filesAllowed = filesAllowed;
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> all = new java.util.HashSet<>(a);
    all.addAll(b);
    return Set.copyOf(all);
  }

  /**
   * Parses one definition.
   *
   * @param source where it came from, e.g. the file path or "request body"
   * @param position how to name the target before its name is known, e.g. "#3"
   * @param forcedName the name from the URL path (API updates), or null
   */
  public static TargetSpec parse(String source, String position, JsonNode node, String forcedName) {
    return parse(source, position, node, forcedName, false);
  }

  /**
   * Parses one definition, as {@link #parse(String, String, JsonNode, String)}; {@code
   * filesAllowed} lets header values come from files ({@code valueFile}), which only the targets
   * file may do: a definition sent through the API must not make the monitor read its host's files
   * and send them to a URL of the sender's choice.
   */
  public static TargetSpec parse(
      String source, String position, JsonNode node, String forcedName, boolean filesAllowed) {
    if (node == null || !node.isObject()) {
      throw new InvalidTargetException(source, position, null, "must be a mapping of fields");
    }
    String label = position;
    JsonNode nameNode = node.get("name");
    if (nameNode != null && nameNode.isTextual()) {
      label = (position.isEmpty() ? "" : position + " ") + "'" + nameNode.asText() + "'";
    } else if (forcedName != null) {
      label = "'" + forcedName + "'";
    }
    return new TargetParser(source, label, node, filesAllowed).parse(forcedName);
  }

  private TargetSpec parse(String forcedName) {
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String field = names.next();
      if (!FIELDS.contains(field)) {
        throw invalid(
            field,
            "unknown field (known: " + String.join(", ", FIELDS.stream().sorted().toList()) + ")");
      }
    }
    String name = name(forcedName);
    String type = text("type", null);
    URI url = url();
    TargetKind kind;
    TargetKind byUrl = url == null ? TargetKind.PUSH : TargetUrls.kindOf(url);
    if (type == null) {
      kind = byUrl;
    } else {
      kind =
          switch (type.toLowerCase(Locale.ROOT)) {
            case "http" -> TargetKind.HTTP;
            case "push" -> TargetKind.PUSH;
            case "tcp" -> TargetKind.TCP;
            case "dns" -> TargetKind.DNS;
            default ->
                throw invalid(
                    "type", "must be http, tcp, dns or push, was '" + printable(type) + "'");
          };
    }
    if (kind != TargetKind.PUSH && url == null) {
      throw invalid("url", "is required for a " + kind.column() + " target");
    }
    if (kind == TargetKind.PUSH && url != null) {
      throw invalid("url", "a push target is not probed, so it takes no url");
    }
    if (kind != byUrl) {
      throw invalid("url", "a " + kind.column() + " target needs " + TargetUrls.example(kind));
    }
    String method = text("method", "GET").toUpperCase(Locale.ROOT);
    if (!METHODS.contains(method)) {
      throw invalid(
          "method",
          "must be one of "
              + String.join(", ", METHODS.stream().sorted().toList())
              + ", was '"
              + printable(method)
              + "'");
    }
    if (kind != TargetKind.HTTP && !method.equals("GET")) {
      throw invalid("method", "applies to http targets only");
    }
    Duration interval = duration("interval", DEFAULT_INTERVAL, MIN_INTERVAL, MAX_INTERVAL);
    Duration timeout = duration("timeout", DEFAULT_TIMEOUT, MIN_TIMEOUT, MAX_TIMEOUT);
    if (timeout.compareTo(interval) > 0) {
      throw invalid("timeout", "must not exceed the interval (" + interval + "), was " + timeout);
    }
    Duration connectTimeout = duration("connectTimeout", timeout, MIN_TIMEOUT, MAX_TIMEOUT);
    if (connectTimeout.compareTo(timeout) > 0) {
      throw invalid("connectTimeout", "must not exceed the timeout (" + timeout + ")");
    }
    Duration heartbeat = duration("heartbeat", null, MIN_HEARTBEAT, MAX_HEARTBEAT);
    if (heartbeat != null && kind != TargetKind.PUSH) {
      throw invalid(
          "heartbeat", "only a push target takes a heartbeat (an http target is probed instead)");
    }
    Checks checks = new CheckFields(this, node, filesAllowed).read(kind, method, url, timeout);
    List<String> locations = new LocationFields(this, node).locations();
    if (heartbeat != null && !locations.isEmpty()) {
      throw invalid(
          "locations",
          "a push target with a heartbeat is watched from one place; give its checkers'"
              + " locations in their pushed results instead");
    }
    Integer quorum = new LocationFields(this, node).quorum(locations);
    Duration retryInterval = duration("retryInterval", null, MIN_INTERVAL, MAX_INTERVAL);
    if (retryInterval != null && retryInterval.compareTo(interval) > 0) {
      throw invalid(
          "retryInterval",
          "must not exceed the interval (" + human(interval) + "), was " + human(retryInterval));
    }
    DependencyFields dependencies = new DependencyFields(this, node);
    List<String> parents = dependencies.parents(name);
    Duration settle = dependencies.settle(parents);
    SloFields objective = new SloFields(this, node);
    java.math.BigDecimal slo = objective.slo();
    int sloWindowDays = objective.windowDays(slo);
    return TargetSpec.builder(name, kind)
        .url(url)
        .method(method)
        .interval(interval)
        .timeout(timeout)
        .connectTimeout(connectTimeout)
        .acceptedStatus(statusCodes())
        .thresholds(
            integer("failureThreshold", DEFAULT_FAILURE_THRESHOLD, 1, 100),
            integer("recoveryThreshold", DEFAULT_RECOVERY_THRESHOLD, 1, 100))
        .followRedirects(bool("followRedirects", false))
        .enabled(bool("enabled", true))
        .heartbeat(heartbeat)
        .checks(checks)
        .remindEvery(duration("remindEvery", null, MIN_REMIND_EVERY, MAX_REMIND_EVERY))
        .maintenance(maintenance())
        .locations(locations, quorum)
        .retryInterval(retryInterval)
        .dependsOn(parents, settle)
        .slo(slo, sloWindowDays)
        .build();
  }

  private List<Window> maintenance() {
    JsonNode value = node.get("maintenance");
    if (value == null || value.isNull()) {
      return List.of();
    }
    if (!value.isArray()) {
      throw invalid("maintenance", "must be a list of windows (days, start, length, zone)");
    }
    if (value.size() > MAX_WINDOWS) {
      throw invalid("maintenance", "has more than " + MAX_WINDOWS + " windows");
    }
    List<Window> windows = new ArrayList<>();
    for (int i = 0; i < value.size(); i++) {
      try {
        windows.add(WindowForm.read(value.get(i), "maintenance[" + i + "].", Set.of()));
      } catch (InvalidQuietException e) {
        throw invalid(e.field(), e.reason());
      }
    }
    return windows;
  }

  /**
   * Reads the checks of a stored target back (the form {@link CheckForm#write} wrote), with the
   * same validation as a new definition; files are allowed, the definition was accepted when
   * stored.
   */
  static Checks storedChecks(
      String name,
      JsonNode stored,
      TargetKind kind,
      String method,
      java.net.URI url,
      Duration timeout) {
    TargetParser parser = new TargetParser("stored target", "'" + name + "'", stored, true);
    return new CheckFields(parser, stored, true).read(kind, method, url, timeout);
  }

  private String name(String forcedName) {
    String raw = text("name", null);
    if (raw == null && forcedName == null) {
      throw invalid("name", "is required");
    }
    String name;
    try {
      name = ServiceNames.normalize(raw != null ? raw : forcedName);
    } catch (IllegalArgumentException e) {
      throw invalid("name", e.getMessage());
    }
    if (forcedName != null && !name.equals(forcedName)) {
      throw invalid("name", "'" + name + "' does not match the path ('" + forcedName + "')");
    }
    return name;
  }

  private URI url() {
    String raw = text("url", null);
    if (raw == null) {
      return null;
    }
    URI uri;
    try {
      uri = new URI(raw);
    } catch (URISyntaxException e) {
      throw invalid("url", "is not a valid URL: " + e.getReason());
    }
    String problem = TargetUrls.problem(uri);
    if (problem != null) {
      throw invalid("url", problem);
    }
    return uri;
  }

  private StatusCodes statusCodes() {
    JsonNode value = node.get("acceptedStatus");
    if (value == null || value.isNull()) {
      return StatusCodes.SUCCESS;
    }
    StringBuilder spec = new StringBuilder();
    if (value.isArray()) {
      for (JsonNode element : value) {
        spec.append(spec.isEmpty() ? "" : ",").append(element.asText());
      }
    } else if (value.isIntegralNumber() || value.isTextual()) {
      spec.append(value.asText());
    } else {
      throw invalid("acceptedStatus", "must be a code, a range like 200-299, or a list of them");
    }
    try {
      return StatusCodes.parse(spec.toString());
    } catch (IllegalArgumentException e) {
      throw invalid("acceptedStatus", e.getMessage());
    }
  }

  private String text(String field, String fallback) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return fallback;
    }
    if (!value.isTextual()) {
      throw invalid(field, "must be a string");
    }
    String text = value.asText().strip();
    if (text.isEmpty()) {
      throw invalid(field, "must not be empty");
    }
    if (text.length() > 2048) {
      throw invalid(field, "longer than 2048 characters");
    }
    if (!printable(text).equals(text)) {
      throw invalid(field, "contains control characters (NUL, CR, LF, ...)");
    }
    return text;
  }

  int integer(String field, int fallback, int min, int max) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return fallback;
    }
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      throw invalid(field, "must be a whole number");
    }
    int number = value.asInt();
    if (number < min || number > max) {
      throw invalid(field, "must be between " + min + " and " + max + ", was " + number);
    }
    return number;
  }

  private boolean bool(String field, boolean fallback) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return fallback;
    }
    if (!value.isBoolean()) {
      throw invalid(field, "must be true or false");
    }
    return value.asBoolean();
  }

  Duration duration(String field, Duration fallback, Duration min, Duration max) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return fallback;
    }
    Duration duration;
    if (value.isIntegralNumber()) {
      throw invalid(field, "needs a unit, e.g. 10s or 500ms");
    }
    Matcher matcher = DURATION.matcher(value.asText().strip().toLowerCase(Locale.ROOT));
    if (!value.isTextual() || !matcher.matches()) {
      throw invalid(field, "must be a duration like 500ms, 10s, 5m or 1h");
    }
    long amount = Long.parseLong(matcher.group(1));
    duration =
        switch (matcher.group(2)) {
          case "ms" -> Duration.ofMillis(amount);
          case "s" -> Duration.ofSeconds(amount);
          case "m" -> Duration.ofMinutes(amount);
          default -> Duration.ofHours(amount);
        };
    if (duration.compareTo(min) < 0 || duration.compareTo(max) > 0) {
      throw invalid(
          field,
          "must be between " + human(min) + " and " + human(max) + ", was " + value.asText());
    }
    return duration;
  }

  static String human(Duration duration) {
    if (duration.toMillis() < 1000) {
      return duration.toMillis() + "ms";
    }
    return duration.toSeconds() % 3600 == 0 && duration.toHours() > 1
        ? duration.toHours() + "h"
        : duration.toSeconds() + "s";
  }

  InvalidTargetException invalid(String field, String reason) {
    return new InvalidTargetException(source, label, field, reason);
  }
}
