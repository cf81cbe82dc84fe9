package dev.vigil.notifier.api;

import dev.vigil.notifier.instances.ChannelState;
import java.util.List;
import java.util.function.Supplier;

/**
 * Where the API reads channels from.
 *
 * @param current read now (admin API)
 * @param lastKnown as of the last heartbeat, without a database read ({@code /health})
 */
public record ChannelViews(
    Supplier<List<ChannelState>> current, Supplier<List<ChannelState>> lastKnown) {
  /** No channels to show (an API without delivery). */
  public static ChannelViews none() {
    return new ChannelViews(List::of, List::of);
  }
}
