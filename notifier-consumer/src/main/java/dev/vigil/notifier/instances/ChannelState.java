package dev.vigil.notifier.instances;

import java.util.List;

/**
 * One channel as every instance sees it: which running instances deliver to it, and its unfinished
 * deliveries. A channel with pending deliveries and no running instance is {@code
 * waitingForInstance}: its deliveries wait (no attempts are made, none goes dead) until an instance
 * with the channel runs.
 *
 * @param configuredHere whether the instance answering has the channel
 * @param instances the running instances that have the channel
 * @param oldestPendingAt arrival of the oldest pending delivery (ISO-8601), or null
 * @param oldestPendingAgeSeconds its age by the database's clock, 0 without pending deliveries
 * @param rateLimit the channel's send rate here ({@code 1/1s}, {@code off}), null for a channel
 *     without one (the signed webhook) or not configured here
 * @param limited whether deliveries are held back now by the rate ({@code rate}) or by the
 *     endpoint's 429 ({@code retry-after}), see {@code limitedBy}
 * @param limitedForSeconds until the endpoint may be sent to again
 * @param openGroups open groups of the channel (0 or 1; see {@link OpenGroup})
 */
public record ChannelState(
    String channel,
    boolean configuredHere,
    List<String> instances,
    long pending,
    long dead,
    String oldestPendingAt,
    double oldestPendingAgeSeconds,
    boolean waitingForInstance,
    String rateLimit,
    boolean limited,
    String limitedBy,
    double limitedForSeconds,
    int openGroups) {
  public ChannelState {
    instances = List.copyOf(instances);
  }
}
