package dev.vigil.notifier.instances;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * Per-channel gauges, set at every heartbeat from the channel states: queue and its age, whether
 * the channel is limited, the deliveries of channels no running instance has, and the channel's
 * open group (open or not, services DOWN in it, transitions waiting for its next message). A
 * channel's gauges are registered once, when it is first seen, and only their values change
 * afterwards (a channel that is gone reads 0): re-registering meters while Prometheus scrapes them
 * can show one series twice, which fails the scrape.
 */
final class ChannelMetrics {
  /** One channel's current values, read by its gauges. */
  private static final class Values {
    volatile double unservedPending;
    volatile double unservedAge;
    volatile double limited;
    volatile double pending;
    volatile double pendingAge;
    volatile double groupsOpen;
    volatile double groupServicesDown;
    volatile double groupWaiting;
  }

  private final MeterRegistry registry;
  private final Map<String, Values> channels = new ConcurrentHashMap<>();

  ChannelMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  void publish(List<ChannelState> states, List<OpenGroup> groups) {
    Map<String, ChannelState> byName = new ConcurrentHashMap<>();
    states.forEach(state -> byName.put(state.channel(), state));
    Map<String, OpenGroup> groupOf = new ConcurrentHashMap<>();
    groups.forEach(group -> groupOf.put(group.channel(), group));
    for (ChannelState state : states) {
      channels.computeIfAbsent(state.channel(), this::register);
    }
    channels.forEach(
        (channel, values) -> {
          ChannelState state = byName.get(channel);
          boolean unserved = state != null && state.instances().isEmpty();
          values.unservedPending = unserved ? state.pending() : 0;
          values.unservedAge = unserved ? state.oldestPendingAgeSeconds() : 0;
          values.limited = state != null && state.limited() ? 1 : 0;
          values.pending = state == null ? 0 : state.pending();
          values.pendingAge = state == null ? 0 : state.oldestPendingAgeSeconds();
          OpenGroup group = groupOf.get(channel);
          values.groupsOpen = group == null ? 0 : 1;
          values.groupServicesDown = group == null ? 0 : group.servicesDown();
          values.groupWaiting = group == null ? 0 : group.waiting();
        });
  }

  private Values register(String channel) {
    Values values = new Values();
    gauge(
        channel,
        values,
        "vigil.notifier.channel.unserved.pending",
        "Pending deliveries of a channel that no running notifier instance has",
        v -> v.unservedPending);
    gauge(
        channel,
        values,
        "vigil.notifier.channel.unserved.age.seconds",
        "Age of the oldest pending delivery of a channel no running instance has",
        v -> v.unservedAge);
    gauge(
        channel,
        values,
        "vigil.notifier.channel.limited",
        "1 while a channel's deliveries wait for its rate limit or a 429",
        v -> v.limited);
    gauge(
        channel,
        values,
        "vigil.notifier.channel.pending",
        "Pending deliveries of a channel",
        v -> v.pending);
    gauge(
        channel,
        values,
        "vigil.notifier.channel.oldest.pending.age.seconds",
        "Age of a channel's oldest pending delivery",
        v -> v.pendingAge);
    gauge(
        channel,
        values,
        "vigil.notifier.channel.groups.open",
        "Open groups of a grouping channel (Slack, PagerDuty): 0 or 1",
        v -> v.groupsOpen);
    gauge(
        channel,
        values,
        "vigil.notifier.channel.groups.services.down",
        "Services DOWN in a channel's open group, as of its last message",
        v -> v.groupServicesDown);
    gauge(
        channel,
        values,
        "vigil.notifier.channel.groups.waiting",
        "Transitions of a grouping channel that wait for the open group's next message",
        v -> v.groupWaiting);
    return values;
  }

  private void gauge(
      String channel,
      Values values,
      String name,
      String description,
      ToDoubleFunction<Values> value) {
    Gauge.builder(name, values, value)
        .description(description)
        .tag("channel", channel)
        .register(registry);
  }
}
