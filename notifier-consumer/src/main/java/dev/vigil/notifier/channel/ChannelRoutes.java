package dev.vigil.notifier.channel;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The configured channels and the routes that pick them. A route matches a service by exact name,
 * by prefix ({@code web-*}) or every service ({@code *}); the <b>first</b> matching route in file
 * order wins and names every channel the service's events go to. A service no route matches goes to
 * the signed webhook ({@value WebhookChannel#NAME}), so without routes the notifier behaves as it
 * always did.
 *
 * @param channels every channel by name, the built-in webhook included
 * @param routes in file order
 * @param limits the send rate (and 429 bucket) of every channel but the signed webhook, by name
 * @param groups the grouping of every channel that groups its transitions (Slack and PagerDuty
 *     unless turned off), by name; the others send one message per transition
 */
public record ChannelRoutes(
    Map<String, Channel> channels,
    List<Route> routes,
    Map<String, RateLimit> limits,
    Map<String, GroupSettings> groups) {

  /** Channels without grouping. */
  public ChannelRoutes(
      Map<String, Channel> channels, List<Route> routes, Map<String, RateLimit> limits) {
    this(channels, routes, limits, Map.of());
  }

  /** One route: which services, which channels (at least one, all defined). */
  public record Route(String match, List<String> channels) {
    public Route {
      channels = List.copyOf(channels);
    }

    /**
     * Whether this route takes {@code service} ({@code *}, a prefix ending in {@code *}, a name).
     */
    public boolean matches(String service) {
      if (match.equals("*")) {
        return true;
      }
      if (match.endsWith("*")) {
        return service.startsWith(match.substring(0, match.length() - 1));
      }
      return service.equals(match);
    }

    /** Whether every service {@code later} matches is already taken by this route. */
    boolean shadows(Route later) {
      if (match.equals("*")) {
        return true;
      }
      if (!match.endsWith("*")) {
        return match.equals(later.match);
      }
      String prefix = match.substring(0, match.length() - 1);
      return later.match.startsWith(prefix) && !later.match.equals("*");
    }
  }

  public ChannelRoutes {
    channels = new LinkedHashMap<>(channels);
    routes = List.copyOf(routes);
    limits = Map.copyOf(limits);
    groups = Map.copyOf(groups);
    for (Map.Entry<String, GroupSettings> group : groups.entrySet()) {
      if (!group.getValue().enabled()) {
        throw new IllegalArgumentException("channel '" + group.getKey() + "': grouping is off");
      }
      if (!(channels.get(group.getKey()) instanceof GroupChannel)) {
        throw new IllegalArgumentException(
            "channel '" + group.getKey() + "': only Slack and PagerDuty channels group");
      }
    }
  }

  /** Only the signed webhook, for every service: the behaviour without a routes file. */
  public static ChannelRoutes webhookOnly(Channel webhook) {
    return new ChannelRoutes(Map.of(webhook.name(), webhook), List.of(), Map.of());
  }

  /** The channels of {@code service}'s events, in route order. */
  public List<String> channelsFor(String service) {
    return channelsFor(routes, service);
  }

  /**
   * The channels the first route of {@code routes} that matches {@code service} names; the signed
   * webhook when none matches (the same rule for this instance's routes and its peers').
   */
  public static List<String> channelsFor(List<Route> routes, String service) {
    for (Route route : routes) {
      if (route.matches(service)) {
        return route.channels();
      }
    }
    return List.of(WebhookChannel.NAME);
  }

  /** Channel names, for metrics registered up front. */
  public List<String> names() {
    return new ArrayList<>(channels.keySet());
  }
}
