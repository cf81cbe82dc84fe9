package dev.vigil.notifier.instances;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;

/**
 * Per-channel gauges, replaced at every heartbeat from the channel states: queue and its age,
 * whether the channel is limited, and the deliveries of channels no running instance has.
 */
final class ChannelMetrics {
  private final MultiGauge unservedPending;
  private final MultiGauge unservedAge;
  private final MultiGauge limited;
  private final MultiGauge pending;
  private final MultiGauge pendingAge;

  ChannelMetrics(MeterRegistry registry) {
    unservedPending =
        gauge(
            registry,
            "vigil.notifier.channel.unserved.pending",
            "Pending deliveries of a channel that no running notifier instance has");
    unservedAge =
        gauge(
            registry,
            "vigil.notifier.channel.unserved.age.seconds",
            "Age of the oldest pending delivery of a channel no running instance has");
    limited =
        gauge(
            registry,
            "vigil.notifier.channel.limited",
            "1 while a channel's deliveries wait for its rate limit or a 429");
    pending = gauge(registry, "vigil.notifier.channel.pending", "Pending deliveries of a channel");
    pendingAge =
        gauge(
            registry,
            "vigil.notifier.channel.oldest.pending.age.seconds",
            "Age of a channel's oldest pending delivery");
  }

  private static MultiGauge gauge(MeterRegistry registry, String name, String description) {
    return MultiGauge.builder(name).description(description).register(registry);
  }

  void publish(List<ChannelState> states) {
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
}
