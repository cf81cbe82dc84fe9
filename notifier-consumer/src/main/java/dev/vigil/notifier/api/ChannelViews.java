package dev.vigil.notifier.api;

import dev.vigil.notifier.instances.ChannelState;
import dev.vigil.notifier.instances.OpenGroup;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Where the API reads channels from.
 *
 * @param current read now (admin API)
 * @param lastKnown as of the last heartbeat, without a database read ({@code /health})
 * @param groups open groups of a channel (of every channel for null), read now (admin API)
 */
public record ChannelViews(
    Supplier<List<ChannelState>> current,
    Supplier<List<ChannelState>> lastKnown,
    Function<String, List<OpenGroup>> groups) {
  /** No channels to show (an API without delivery). */
  public static ChannelViews none() {
    return new ChannelViews(List::of, List::of, channel -> List.of());
  }
}
