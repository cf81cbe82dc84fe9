package dev.vigil.monitor.probe;

import java.time.Duration;
import java.util.Objects;

/**
 * How one instance's scheduler claims work.
 *
 * @param instanceId lease owner name, unique per running instance
 * @param lease minimum lease length; a claimed target is taken over by another instance at the
 *     earliest this long after the claim (longer when the target's timeouts need it)
 * @param claimBatch most targets claimed in one statement
 * @param pollInterval pause between claims when the last one was not full
 * @param maxInFlight most probes running at once on this instance
 * @param location the location this instance probes from: it claims the (target, location) pairs of
 *     targets that list it, and every target that lists none
 */
public record SchedulerSettings(
    String instanceId,
    Duration lease,
    int claimBatch,
    Duration pollInterval,
    int maxInFlight,
    String location) {

  /** The location of an instance that was given none. */
  public static final String DEFAULT_LOCATION = "default";

  /** Settings of an instance in the {@link #DEFAULT_LOCATION}. */
  public SchedulerSettings(
      String instanceId, Duration lease, int claimBatch, Duration pollInterval, int maxInFlight) {
    this(instanceId, lease, claimBatch, pollInterval, maxInFlight, DEFAULT_LOCATION);
  }

  public SchedulerSettings {
    Objects.requireNonNull(location, "location");
    Objects.requireNonNull(instanceId, "instanceId");
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be positive");
    }
    if (claimBatch < 1 || maxInFlight < 1) {
      throw new IllegalArgumentException("claimBatch and maxInFlight must be at least 1");
    }
    if (pollInterval.isNegative() || pollInterval.isZero()) {
      throw new IllegalArgumentException("pollInterval must be positive");
    }
  }
}
