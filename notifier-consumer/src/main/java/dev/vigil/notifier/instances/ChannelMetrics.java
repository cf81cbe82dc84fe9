package dev.vigil.notifier.instances;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * Per-channel gauges, set at every heartbeat from the channel states: queue and its age, whether
 * the channel is limited, and the deliveries of channels no running instance has. A channel's
 * gauges are registered once, when it is first seen, and only their values change afterwards (a
 * channel that is gone reads 0): re-registering meters while Prometheus scrapes them can show one
 * series twice, which fails the scrape.
 */
final class ChannelMetrics {
  /** One channel's current values, read by its gauges. */
  private static final class Values {
    volatile double unservedPending;
    volatile double unservedAge;
    volatile double limited;
    volatile double pending;
    volatile double pendingAge;
  }

  private final MeterRegistry registry;
  private final Map<String, Values> channels = new ConcurrentHashMap<>();

  ChannelMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  void publish(List<ChannelState> states) {
    Map<String, ChannelState> byName = new ConcurrentHashMap<>();
    states.forEach(state -> byName.put(state.channel(), state));
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
