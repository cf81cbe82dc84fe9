package dev.vigil.drills.falsepage;

import java.time.Duration;
import java.util.List;

/**
 * Sizes of one false-page drill run.
 *
 * @param targets targets, each probed from every location
 * @param locations the location names (one monitor process and one cuttable path each)
 * @param quorum failing locations that open an incident; null = a majority (the default)
 * @param duration how long faults are injected (the issue asks for 30 minutes)
 * @param interval each target's probe interval
 * @param timeout each probe's read timeout (connect timeout: half of it)
 * @param failureThreshold consecutive failures of a location that make it failing
 * @param outages real outages (every location sees the target fail) scripted into the run
 * @param seed seed of the random fault schedule; the same seed gives the same schedule
 */
public record FalsePageOptions(
    int targets,
    List<String> locations,
    Integer quorum,
    Duration duration,
    Duration interval,
    Duration timeout,
    int failureThreshold,
    int outages,
    long seed) {

  public FalsePageOptions {
    locations = List.copyOf(locations);
    if (targets < outages || targets < 1) {
      throw new IllegalArgumentException("targets must be >= 1 and >= outages, was " + targets);
    }
    if (locations.size() < 2) {
      throw new IllegalArgumentException("need at least 2 locations, was " + locations);
    }
    if (quorum != null && (quorum < 1 || quorum > locations.size())) {
      throw new IllegalArgumentException(
          "quorum must be between 1 and " + locations.size() + ", was " + quorum);
    }
    if (failureThreshold < 2) {
      throw new IllegalArgumentException(
          "failureThreshold must be >= 2 (a blip fails one probe), was " + failureThreshold);
    }
    if (interval.toMillis() < 1000 || timeout.compareTo(interval) >= 0) {
      throw new IllegalArgumentException("need interval >= 1s and timeout < interval");
    }
    if (outages < 0) {
      throw new IllegalArgumentException("outages must be >= 0, was " + outages);
    }
    // The fields are not assigned yet in a compact constructor: outageLength() from the parameters.
    Duration outage = interval.multipliedBy(failureThreshold + 4L);
    if (duration.compareTo(outage.multipliedBy(Math.max(1, outages) + 1L)) < 0) {
      throw new IllegalArgumentException(
          "duration "
              + duration
              + " is too short for "
              + outages
              + " outages of "
              + outage
              + " each");
    }
  }

  /** The issue's drill: 200 targets, three locations, 30 minutes, two real outages. */
  public static FalsePageOptions issueSized(Integer quorum, Duration duration, long seed) {
    return new FalsePageOptions(
        200,
        List.of("eu-west", "us-east", "ap-south"),
        quorum,
        duration,
        Duration.ofSeconds(3),
        Duration.ofMillis(1500),
        2,
        2,
        seed);
  }

  /** The quorum in effect: the given one, else a majority of the locations. */
  public int effectiveQuorum() {
    return quorum != null ? quorum : locations.size() / 2 + 1;
  }

  /**
   * How long a real outage lasts: long enough for every location to reach the threshold and for the
   * incident to be announced, with a margin for a loaded machine.
   */
  public Duration outageLength() {
    return interval.multipliedBy(failureThreshold + 4L); // as checked in the constructor
  }

  /**
   * A location cut lasts at least this long: long enough that a monitor deciding from one location
   * alone (quorum 1) pages for it.
   */
  public Duration shortestCut() {
    return interval.multipliedBy(failureThreshold + 1L);
  }

  /** A blip lasts at most this long: it can fail at most one probe per target and location. */
  public Duration longestBlip() {
    return interval.dividedBy(3);
  }

  /** A location is stale after this long without a result (the monitor's rule). */
  public Duration staleAfter() {
    return interval.multipliedBy(3).plus(timeout);
  }
}
