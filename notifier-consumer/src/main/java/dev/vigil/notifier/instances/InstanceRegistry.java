package dev.vigil.notifier.instances;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.vigil.kit.PeriodicTask;
import dev.vigil.kit.db.Database;
import dev.vigil.notifier.channel.ChannelRoutes;
import dev.vigil.notifier.channel.ChannelRoutesFile;
import dev.vigil.notifier.channel.RateLimit;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's heartbeat row and its view of its peers.
 *
 * <p>Every {@code heartbeat} the instance writes its channels and routes ({@code
 * notifier_instance}, database clock) and reads its peers'. An instance is running while its last
 * heartbeat is younger than three heartbeats and it has not stopped; a clean stop marks the row
 * stopped.
 *
 * <p>Routes: {@link #channelsFor} is the union of this instance's channels for a service and those
 * of every peer running or seen within {@code routeMemory}, so the events any instance consumes get
 * the deliveries that any current (or just restarted) configuration routes them to. A peer's routes
 * reach this instance's intake within one heartbeat of the peer's start. Deliveries are claimed
 * only by instances that have the channel (see the delivery package); a delivery for a channel no
 * running instance has waits and is reported by {@link #channels()} and the metric {@code
 * vigil_notifier_channel_unserved_pending}.
 */
public final class InstanceRegistry implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(InstanceRegistry.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final InstanceStore store;
  private final String instanceId;
  private final ChannelRoutes own;
  private final String ownRoutesJson;
  private final Duration heartbeat;
  private final Duration liveness;
  private final Duration routeMemory;
  private final MultiGauge unservedPending;
  private final MultiGauge unservedAge;
  private final MultiGauge limited;
  private final MultiGauge pending;
  private final MultiGauge pendingAge;
  private volatile List<ChannelState> lastStates = List.of();
  private volatile List<List<ChannelRoutes.Route>> peerRoutes = List.of();
  private final Set<String> badPeers = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private PeriodicTask task;

  public InstanceRegistry(
      Database database,
      String instanceId,
      ChannelRoutes own,
      Duration heartbeat,
      Duration routeMemory,
      MeterRegistry registry) {
    this.store = new InstanceStore(database);
    this.instanceId = instanceId;
    this.own = own;
    this.ownRoutesJson = routesJson(own.routes());
    this.heartbeat = heartbeat;
    this.liveness = heartbeat.multipliedBy(3);
    this.routeMemory = routeMemory;
    this.unservedPending =
        gauge(
            registry,
            "vigil.notifier.channel.unserved.pending",
            "Pending deliveries of a channel that no running notifier instance has");
    this.unservedAge =
        gauge(
            registry,
            "vigil.notifier.channel.unserved.age.seconds",
            "Age of the oldest pending delivery of a channel no running instance has");
    this.limited =
        gauge(
            registry,
            "vigil.notifier.channel.limited",
            "1 while a channel's deliveries wait for its rate limit or a 429");
    this.pending =
        gauge(
            registry,
            "vigil.notifier.channel.pending",
            "Pending deliveries of a channel (its queue)");
    this.pendingAge =
        gauge(
            registry,
            "vigil.notifier.channel.oldest.pending.age.seconds",
            "Age of a channel's oldest pending delivery");
  }

  private static MultiGauge gauge(MeterRegistry registry, String name, String description) {
    return MultiGauge.builder(name).description(description).register(registry);
  }

  /**
   * Writes the first heartbeat and reads the peers before returning (so the intake, started after
   * this, applies the peers' routes from its first record), then beats every {@code heartbeat}.
   */
  public InstanceRegistry start() {
    beat();
    task = PeriodicTask.start("notifier-heartbeat", heartbeat, heartbeat, this::beat);
    return this;
  }

  private void beat() {
    store.beat(instanceId, own.names(), ownRoutesJson);
    refreshPeers();
    store.prune(liveness, routeMemory);
    publish(channels());
  }

  private void refreshPeers() {
    List<List<ChannelRoutes.Route>> tables = new ArrayList<>();
    for (InstanceStore.Peer peer : store.peers(liveness, routeMemory)) {
      if (peer.instanceId().equals(instanceId)) {
        continue;
      }
      try {
        tables.add(parseRoutes(peer.routesJson()));
      } catch (IllegalArgumentException e) {
        if (badPeers.add(peer.instanceId())) {
          LOG.warn(
              "peer routes ignored instance={} reason=\"{}\"", peer.instanceId(), e.getMessage());
        }
      }
    }
    peerRoutes = List.copyOf(tables);
  }

  /**
   * The channels of {@code service}'s events: this instance's routes first, then any further
   * channel a peer's routes name (running peers and those seen within the route memory).
   */
  public List<String> channelsFor(String service) {
    List<List<ChannelRoutes.Route>> peers = peerRoutes;
    if (peers.isEmpty()) {
      return own.channelsFor(service);
    }
    Set<String> channels = new LinkedHashSet<>(own.channelsFor(service));
    for (List<ChannelRoutes.Route> table : peers) {
      channels.addAll(ChannelRoutes.channelsFor(table, service));
    }
    return List.copyOf(channels);
  }

  /**
   * Every channel that a running instance has or that has unfinished deliveries, read now from the
   * database.
   */
  public List<ChannelState> channels() {
    Map<String, List<String>> servedBy = new TreeMap<>();
    for (String channel : own.names()) {
      servedBy.put(channel, new ArrayList<>());
    }
    for (InstanceStore.Peer peer : store.peers(liveness, Duration.ZERO)) {
      if (peer.running()) {
        for (String channel : peer.channels()) {
          servedBy.computeIfAbsent(channel, c -> new ArrayList<>()).add(peer.instanceId());
        }
      }
    }
    Map<String, InstanceStore.Backlog> backlog = new TreeMap<>();
    for (InstanceStore.Backlog row : store.backlog()) {
      backlog.put(row.channel(), row);
      servedBy.computeIfAbsent(row.channel(), c -> new ArrayList<>());
    }
    Map<String, InstanceStore.Bucket> buckets = new TreeMap<>();
    for (InstanceStore.Bucket bucket :
        store.buckets(own.limits().values().stream().map(RateLimit::bucket).distinct().toList())) {
      buckets.put(bucket.bucket(), bucket);
    }
    List<ChannelState> states = new ArrayList<>();
    servedBy.forEach(
        (channel, instances) -> {
          InstanceStore.Backlog b = backlog.get(channel);
          long pending = b == null ? 0 : b.pending();
          RateLimit limit = own.limits().get(channel);
          InstanceStore.Bucket bucket = limit == null ? null : buckets.get(limit.bucket());
          String limitedBy = null;
          if (bucket != null && bucket.blocked()) {
            limitedBy = "retry-after";
          } else if (bucket != null && bucket.paced() && pending > 0) {
            limitedBy = "rate";
          }
          states.add(
              new ChannelState(
                  channel,
                  own.channels().containsKey(channel),
                  instances,
                  pending,
                  b == null ? 0 : b.dead(),
                  b == null || b.oldestPending() == null ? null : b.oldestPending().toString(),
                  b == null ? 0 : b.oldestAgeSeconds(),
                  pending > 0 && instances.isEmpty(),
                  limit == null ? null : limit.text(),
                  limitedBy != null,
                  limitedBy,
                  limitedBy == null ? 0 : bucket.forSeconds()));
        });
    return states;
  }

  /**
   * The channels as of the last heartbeat (no database read): what {@code /health} shows, so a
   * health probe never waits on the database for it.
   */
  public List<ChannelState> lastChannels() {
    return lastStates;
  }

  private void publish(List<ChannelState> states) {
    lastStates = List.copyOf(states);
    List<MultiGauge.Row<?>> unserved = new ArrayList<>();
    List<MultiGauge.Row<?>> unservedAges = new ArrayList<>();
    List<MultiGauge.Row<?>> limitedRows = new ArrayList<>();
    List<MultiGauge.Row<?>> queue = new ArrayList<>();
    List<MultiGauge.Row<?>> ages = new ArrayList<>();
    for (ChannelState state : states) {
      boolean none = state.instances().isEmpty();
      Tags tags = Tags.of("channel", state.channel());
      unserved.add(MultiGauge.Row.of(tags, none ? state.pending() : 0));
      unservedAges.add(MultiGauge.Row.of(tags, none ? state.oldestPendingAgeSeconds() : 0));
      limitedRows.add(MultiGauge.Row.of(tags, state.limited() ? 1 : 0));
      queue.add(MultiGauge.Row.of(tags, state.pending()));
      ages.add(MultiGauge.Row.of(tags, state.oldestPendingAgeSeconds()));
    }
    unservedPending.register(unserved, true);
    unservedAge.register(unservedAges, true);
    limited.register(limitedRows, true);
    pending.register(queue, true);
    pendingAge.register(ages, true);
  }

  static String routesJson(List<ChannelRoutes.Route> routes) {
    ArrayNode array = JSON.createArrayNode();
    for (ChannelRoutes.Route route : routes) {
      var node = array.addObject();
      node.put("match", route.match());
      route.channels().forEach(node.putArray("channels")::add);
    }
    return array.toString();
  }

  /** A peer's routes as it wrote them; refused (with why) when any part is not well formed. */
  static List<ChannelRoutes.Route> parseRoutes(String json) {
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

  /** Stops the heartbeat and marks this instance stopped (its routes stay in effect a while). */
  @Override
  public void close() {
    if (task != null) {
      task.close();
    }
    try {
      store.stopped(instanceId);
    } catch (RuntimeException e) {
      LOG.warn(
          "instance not marked stopped (peers see it stop after {} ms) instance={} error=\"{}\"",
          liveness.toMillis(),
          instanceId,
          e.getMessage());
    }
  }
}
