package dev.vigil.notifier.instances;

import dev.vigil.kit.PeriodicTask;
import dev.vigil.kit.db.Database;
import dev.vigil.notifier.channel.ChannelRoutes;
import dev.vigil.notifier.channel.RateLimit;
import io.micrometer.core.instrument.MeterRegistry;
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

  private final InstanceStore store;
  private final String instanceId;
  private final ChannelRoutes own;
  private final String ownRoutesJson;
  private final Duration heartbeat;
  private final Duration liveness;
  private final Duration routeMemory;
  private final ChannelMetrics metrics;
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
    this.ownRoutesJson = PeerRoutes.json(own.routes());
    this.heartbeat = heartbeat;
    this.liveness = heartbeat.multipliedBy(3);
    this.routeMemory = routeMemory;
    this.metrics = new ChannelMetrics(registry);
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
    List<OpenGroup> groups = store.groups(null);
    publish(channels(groups), groups);
  }

  private void refreshPeers() {
    List<List<ChannelRoutes.Route>> tables = new ArrayList<>();
    for (InstanceStore.Peer peer : store.peers(liveness, routeMemory)) {
      if (peer.instanceId().equals(instanceId)) {
        continue;
      }
      try {
        tables.add(PeerRoutes.parse(peer.routesJson()));
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
    return channels(store.groups(null));
  }

  private List<ChannelState> channels(List<OpenGroup> openGroups) {
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
    Map<String, OpenGroup> groups = new TreeMap<>();
    for (OpenGroup group : openGroups) {
      groups.put(group.channel(), group);
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
                  limitedBy == null ? 0 : bucket.forSeconds(),
                  groups.containsKey(channel) ? 1 : 0));
        });
    return states;
  }

  /** Open groups of {@code channel} (every channel when null), read now from the database. */
  public List<OpenGroup> groups(String channel) {
    return store.groups(channel);
  }

  /**
   * The channels as of the last heartbeat (no database read): what {@code /health} shows, so a
   * health probe never waits on the database for it.
   */
  public List<ChannelState> lastChannels() {
    return lastStates;
  }

  private void publish(List<ChannelState> states, List<OpenGroup> groups) {
    lastStates = List.copyOf(states);
    metrics.publish(states, groups);
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
