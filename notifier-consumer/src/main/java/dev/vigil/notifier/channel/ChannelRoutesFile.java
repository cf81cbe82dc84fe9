package dev.vigil.notifier.channel;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.vigil.kit.SafeText;
import dev.vigil.kit.SecretFile;
import dev.vigil.kit.Setting;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Reads channels and routes from YAML or JSON (JSON is YAML), validates all of it and builds the
 * channels. Every problem is an {@link IllegalArgumentException} naming the route or channel and
 * the field, never a secret value. Shape:
 *
 * <pre>{@code
 * channels:
 *   oncall:   {type: pagerduty, routingKey: env:PD_KEY, severity: critical}  # rateLimit: 120/1m
 *   team:     {type: slack, url: file:/run/secrets/slack-url}   # rateLimit: 1/s by default
 *   # Slack, PagerDuty and email group by default: group: {wait: 10s, interval: 1m, max: 100}, or off
 *   chat:     {type: slack, url: env:CHAT_URL, group: off}
 *   am:       {type: alertmanager, url: http://alertmanager:9093, firingFor: 168h}
 *   am-hook:  {type: alertmanager-webhook, url: https://hooks.example/am}
 *   ops-mail: {type: email, host: smtp.example.com, username: vigil,
 *              passwordFile: /run/secrets/smtp, from: vigil@example.com, to: [ops@example.com]}
 * routes:
 *   - {match: payments, channels: [oncall, team, webhook]}
 *   - {match: web-*, channels: [team]}
 * }</pre>
 */
public final class ChannelRoutesFile {
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION));

  /** What a channel name looks like (lower case, digits, - and _; at most 40 characters). */
  public static final String NAME = "[a-z0-9][a-z0-9_-]{0,39}";

  /**
   * What a route's match looks like: {@code *}, a service name, or a prefix ending in {@code *}.
   */
  public static final String MATCH = "\\*|[a-z0-9][a-z0-9_-]{0,49}\\*?";

  private static final Set<String> TYPES =
      Set.of("pagerduty", "slack", "alertmanager", "alertmanager-webhook", "email");
  private static final Map<String, Set<String>> FIELDS =
      Map.of(
          "pagerduty", Set.of("type", "url", "routingKey", "severity", "rateLimit", "group"),
          "slack", Set.of("type", "url", "rateLimit", "group"),
          "alertmanager", Set.of("type", "url", "severity", "firingFor", "rateLimit"),
          "alertmanager-webhook", Set.of("type", "url", "severity", "rateLimit"),
          "email", EmailSettings.FIELDS);

  /**
   * Rates when a channel states none: Slack's documented one message per second per incoming
   * webhook; PagerDuty's 120 events per minute per integration (routing) key, the Events API v2
   * limit PagerDuty states (beyond it the API answers 429); the others have no stated rate (their
   * 429s are still honoured per endpoint).
   */
  private static final Map<String, String> DEFAULT_RATES =
      Map.of(
          "slack",
          "1/s",
          "pagerduty",
          "120/1m",
          "alertmanager",
          "off",
          "alertmanager-webhook",
          "off",
          "email",
          "off");

  private static final Setting<Duration> FIRING_FOR =
      Setting.duration("VIGIL_ALERTMANAGER_FIRING_FOR", "168h").range("1m", "87600h");

  /**
   * What channels need from the notifier's settings.
   *
   * @param env resolves {@code env:NAME} references
   * @param defaultRoutingKey {@code VIGIL_PAGERDUTY_ROUTING_KEY}, used when a PagerDuty channel
   *     names none; may be blank
   */
  public record Context(
      UnaryOperator<String> env, boolean allowHttp, String defaultRoutingKey, PublicLinks links) {}

  private ChannelRoutesFile() {}

  /** Parses {@code text} (YAML or JSON); {@code webhook} is the built-in default channel. */
  public static ChannelRoutes parse(String text, Channel webhook, Context context) {
    JsonNode root;
    try {
      root = YAML.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "not valid YAML or JSON: " + SafeText.text(e.getOriginalMessage(), 200));
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("must be an object with 'channels' and 'routes'");
    }
    unknownFields(root, Set.of("channels", "routes"), "top level");
    Map<String, Channel> channels = new LinkedHashMap<>();
    Map<String, RateLimit> limits = new LinkedHashMap<>();
    Map<String, GroupSettings> groups = new LinkedHashMap<>();
    channels.put(webhook.name(), webhook);
    JsonNode defined = root.path("channels");
    if (!defined.isMissingNode() && !defined.isObject()) {
      throw new IllegalArgumentException("field 'channels': must map names to channels");
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = defined.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      String name = entry.getKey();
      if (!name.matches(NAME)) {
        throw new IllegalArgumentException(
            "channel '"
                + SafeText.text(name, 40)
                + "': the name must match "
                + NAME
                + " (lower case, digits, - and _)");
      }
      if (channels.containsKey(name)) {
        throw new IllegalArgumentException(
            "channel '" + name + "': the name is taken by the built-in signed webhook");
      }
      Channel channel = channel(name, entry.getValue(), context);
      channels.put(name, channel);
      limits.put(name, rateLimit(name, entry.getValue(), channel));
      if (channel instanceof GroupChannel) {
        GroupSettings group =
            GroupSettings.parse(entry.getValue().get("group"), "channel '" + name + "'");
        if (group.enabled()) {
          groups.put(name, group);
        }
      }
    }
    JsonNode routeNodes = root.path("routes");
    if (!routeNodes.isMissingNode() && !routeNodes.isArray()) {
      throw new IllegalArgumentException("field 'routes': must be a list");
    }
    List<ChannelRoutes.Route> routes = new ArrayList<>();
    int index = 0;
    for (JsonNode node : routeNodes) {
      index++;
      routes.add(route(index, node, channels.keySet(), routes));
    }
    return new ChannelRoutes(channels, routes, limits, groups);
  }

  /**
   * The channel's {@code rateLimit} (or its type's default), in the bucket of its endpoint: Slack
   * limits per incoming-webhook URL, PagerDuty per routing key, Alertmanager per URL.
   */
  private static RateLimit rateLimit(String name, JsonNode node, Channel channel) {
    String where = "channel '" + name + "'";
    String type = node.path("type").asText("").toLowerCase(Locale.ROOT);
    String text = text(node, "rateLimit", DEFAULT_RATES.get(type), where);
    try {
      return RateLimit.parse(text, RateLimit.bucket(type, channel.endpoint()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": field 'rateLimit': " + e.getMessage());
    }
  }

  private static ChannelRoutes.Route route(
      int index, JsonNode node, Set<String> channels, List<ChannelRoutes.Route> earlier) {
    String where = "route " + index;
    if (!node.isObject()) {
      throw new IllegalArgumentException(where + ": must be an object with match and channels");
    }
    String match = node.path("match").isTextual() ? node.path("match").asText() : null;
    if (match == null || !match.matches(MATCH)) {
      throw new IllegalArgumentException(
          where + ": field 'match': must be *, a service name or a prefix ending in *");
    }
    where = "route " + index + " (match '" + match + "')";
    unknownFields(node, Set.of("match", "channels"), where);
    JsonNode list = node.path("channels");
    if (!list.isArray() || list.isEmpty()) {
      throw new IllegalArgumentException(where + ": field 'channels': must list 1 or more names");
    }
    List<String> names = new ArrayList<>();
    for (JsonNode name : list) {
      String text = name.isTextual() ? name.asText() : null;
      if (text == null || !channels.contains(text)) {
        throw new IllegalArgumentException(
            where
                + ": field 'channels': unknown channel '"
                + SafeText.text(String.valueOf(name.asText()), 40)
                + "' (defined: "
                + channels
                + ")");
      }
      if (names.contains(text)) {
        throw new IllegalArgumentException(
            where + ": field 'channels': '" + text + "' is listed twice");
      }
      names.add(text);
    }
    ChannelRoutes.Route route = new ChannelRoutes.Route(match, names);
    for (ChannelRoutes.Route before : earlier) {
      if (before.shadows(route)) {
        throw new IllegalArgumentException(
            where
                + ": field 'match': never used, the earlier route '"
                + before.match()
                + "' takes every service it matches (the first matching route wins)");
      }
    }
    return route;
  }

  private static Channel channel(String name, JsonNode node, Context context) {
    String where = "channel '" + name + "'";
    if (!node.isObject()) {
      throw new IllegalArgumentException(where + ": must be an object with a type");
    }
    String type = node.path("type").asText("").toLowerCase(Locale.ROOT);
    if (!TYPES.contains(type)) {
      throw new IllegalArgumentException(where + ": field 'type': must be one of " + TYPES);
    }
    unknownFields(node, FIELDS.get(type), where);
    String severity = text(node, "severity", "critical", where);
    try {
      return switch (type) {
        case "email" -> EmailSettings.parse(name, node, context.links());
        case "pagerduty" -> {
          String key = text(node, "routingKey", null, where);
          String routingKey =
              key == null
                  ? context.defaultRoutingKey()
                  : resolve(where, "routingKey", key, context);
          if (routingKey == null || routingKey.isBlank()) {
            throw new IllegalArgumentException(
                where
                    + ": field 'routingKey': missing (env:NAME or file:PATH, or set"
                    + " VIGIL_PAGERDUTY_ROUTING_KEY or its _FILE)");
          }
          if (!PagerDutyChannel.SEVERITIES.contains(severity)) {
            throw new IllegalArgumentException(
                where + ": field 'severity': must be one of " + PagerDutyChannel.SEVERITIES);
          }
          String url = text(node, "url", PagerDutyChannel.DEFAULT_URL.toString(), where);
          yield new PagerDutyChannel(
              name, url(where, url, context), routingKey, severity, context.links());
        }
        case "slack" -> {
          String url = text(node, "url", null, where);
          if (url == null) {
            throw new IllegalArgumentException(where + ": field 'url': missing");
          }
          String resolved =
              url.startsWith("env:") || url.startsWith("file:")
                  ? resolve(where, "url", url, context).strip()
                  : url;
          yield new SlackChannel(name, url(where, resolved, context), context.links());
        }
        case "alertmanager" -> {
          String url = required(node, "url", where);
          Duration firingFor;
          try {
            firingFor = FIRING_FOR.parse(text(node, "firingFor", "168h", where));
          } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                where + ": field 'firingFor': must be a duration from 1m to 87600h, e.g. 168h", e);
          }
          yield new AlertmanagerChannel(
              name, url(where, url, context), label(where, severity), firingFor, context.links());
        }
        default ->
            new AlertmanagerWebhookChannel(
                name,
                url(where, required(node, "url", where), context),
                label(where, severity),
                context.links());
      };
    } catch (IllegalArgumentException e) {
      if (e.getMessage() != null && e.getMessage().startsWith(where)) {
        throw e;
      }
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
  }

  private static String label(String where, String severity) {
    if (!severity.matches("[A-Za-z0-9_-]{1,40}")) {
      throw new IllegalArgumentException(
          where + ": field 'severity': 1-40 letters, digits, - or _");
    }
    return severity;
  }

  private static String required(JsonNode node, String field, String where) {
    String value = text(node, field, null, where);
    if (value == null) {
      throw new IllegalArgumentException(where + ": field '" + field + "': missing");
    }
    return value;
  }

  private static String text(JsonNode node, String field, String fallback, String where) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return fallback;
    }
    if (!value.isTextual() || value.asText().isBlank()) {
      throw new IllegalArgumentException(where + ": field '" + field + "': must be a text");
    }
    return value.asText().strip();
  }

  private static URI url(String where, String text, Context context) {
    URI url;
    try {
      url = URI.create(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": field 'url': not a valid URL");
    }
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
    if (!url.isAbsolute() || url.getHost() == null) {
      throw new IllegalArgumentException(where + ": field 'url': must be an absolute URL");
    }
    if (!scheme.equals("https") && !(scheme.equals("http") && context.allowHttp())) {
      throw new IllegalArgumentException(
          where
              + ": field 'url': must use https (VIGIL_WEBHOOK_ALLOW_HTTP=true allows plain http)");
    }
    return url;
  }

  /** An {@code env:NAME} or {@code file:PATH} reference to a secret. */
  private static String resolve(String where, String field, String reference, Context context) {
    if (reference.startsWith("env:")) {
      String value = context.env().apply(reference.substring(4));
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException(
            where
                + ": field '"
                + field
                + "': environment variable "
                + SafeText.text(reference.substring(4), 60)
                + " is not set");
      }
      return value.strip();
    }
    if (reference.startsWith("file:")) {
      return SecretFile.read(where + " " + field, Path.of(reference.substring(5))).strip();
    }
    throw new IllegalArgumentException(
        where + ": field '" + field + "': must be an env:NAME or file:PATH reference");
  }

  private static void unknownFields(JsonNode node, Set<String> known, String where) {
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!known.contains(name)) {
        throw new IllegalArgumentException(
            where + ": field '" + SafeText.text(name, 40) + "': unknown (known: " + known + ")");
      }
    }
  }
}
