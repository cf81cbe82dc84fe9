package dev.vigil.notifier.instances;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.vigil.notifier.channel.ChannelRoutes;
import dev.vigil.notifier.channel.ChannelRoutesFile;
import java.util.ArrayList;
import java.util.List;

/**
 * An instance's route table as it stands in its heartbeat row: {@code [{"match": "pay*",
 * "channels": ["team", "webhook"]}, …]}, in file order. A peer's table is read as untrusted: any
 * part that is not well formed refuses the whole table (the peer's routes are then not applied).
 */
final class PeerRoutes {
  private static final ObjectMapper JSON = new ObjectMapper();

  private PeerRoutes() {}

  static String json(List<ChannelRoutes.Route> routes) {
    ArrayNode array = JSON.createArrayNode();
    for (ChannelRoutes.Route route : routes) {
      var node = array.addObject();
      node.put("match", route.match());
      route.channels().forEach(node.putArray("channels")::add);
    }
    return array.toString();
  }

  /** A peer's routes as it wrote them; refused (with why) when any part is not well formed. */
  static List<ChannelRoutes.Route> parse(String json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("routes are not JSON");
    }
    if (root == null || !root.isArray()) {
      throw new IllegalArgumentException("routes are not a list");
    }
    List<ChannelRoutes.Route> routes = new ArrayList<>();
    for (JsonNode node : root) {
      String match = node.path("match").asText("");
      if (!match.matches(ChannelRoutesFile.MATCH)) {
        throw new IllegalArgumentException("a route's match is not well formed");
      }
      List<String> channels = new ArrayList<>();
      for (JsonNode channel : node.path("channels")) {
        if (!channel.isTextual() || !channel.asText().matches(ChannelRoutesFile.NAME)) {
          throw new IllegalArgumentException("a route names a channel that is not well formed");
        }
        channels.add(channel.asText());
      }
      if (channels.isEmpty()) {
        throw new IllegalArgumentException("a route names no channel");
      }
      routes.add(new ChannelRoutes.Route(match, channels));
    }
    return routes;
  }
}
