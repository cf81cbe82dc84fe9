package dev.vigil.drills.dependencies;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The sizes and timings of one dependencies drill.
 *
 * @param children children behind the gateway (scenarios a and b)
 * @param independents services with no parent beside them, a quarter of which have outages of their
 *     own while the gateway is down
 * @param stayDown children still down when the gateway recovers (paged after the settle period)
 * @param maintenance services under the prefix maintenance window (scenario c)
 * @param stormServices services of the storm (scenario d), parents included
 * @param stormParents parents of the storm, each with an equal share of the other services
 * @param interval probe interval of every service
 * @param announceInterval the monitors' announcer interval
 * @param scenarios the scenarios to run, of a, b, c, d
 */
public record DependenciesOptions(
    int children,
    int independents,
    int stayDown,
    int maintenance,
    int stormServices,
    int stormParents,
    Duration interval,
    Duration announceInterval,
    Set<String> scenarios) {
  public static final List<String> ALL = List.of("a", "b", "c", "d");

  /**
   * Parents (the gateway, the storm's) and children page at the same failed probe, the default
   * threshold: a child whose incident opens before its parent is confirmed waits for it (the
   * parent's confirm bound), so which of them is probed or recorded first does not matter.
   */
  public static final int PARENT_THRESHOLD = 3;

  /** Children and independent services: the same threshold as parents (see above). */
  public static final int CHILD_THRESHOLD = 3;

  public DependenciesOptions {
    if (children < 1 || independents < 1 || maintenance < 1 || stormParents < 1) {
      throw new IllegalArgumentException(
          "--children, --independents, --maintenance and --storm-parents must be at least 1");
    }
    if (stayDown < 0 || stayDown > children) {
      throw new IllegalArgumentException("--stay-down must be between 0 and --children");
    }
    if (stormServices < stormParents * 2) {
      throw new IllegalArgumentException(
          "--services must be at least twice --storm-parents (each parent needs a child)");
    }
    if (interval.compareTo(Duration.ofSeconds(1)) < 0
        || announceInterval.compareTo(Duration.ofMillis(500)) < 0) {
      throw new IllegalArgumentException(
          "--interval must be at least 1s and --announce-interval at least 500ms");
    }
    scenarios = Set.copyOf(scenarios);
    if (scenarios.isEmpty() || !ALL.containsAll(scenarios)) {
      throw new IllegalArgumentException("--scenarios: some of a,b,c,d, was " + scenarios);
    }
  }

  /** The sizes of issue 30. */
  public static DependenciesOptions issueSized() {
    return new DependenciesOptions(
        200,
        20,
        3,
        600,
        10_000,
        10,
        Duration.ofSeconds(5),
        Duration.ofSeconds(10),
        Set.copyOf(ALL));
  }

  /** A quick run: smaller gateway and storm, the maintenance window still over 500 services. */
  public static DependenciesOptions quick() {
    return new DependenciesOptions(
        40, 8, 3, 600, 1_000, 10, Duration.ofSeconds(3), Duration.ofSeconds(2), Set.copyOf(ALL));
  }

  /** Independent services with an outage of their own while the gateway is down. */
  public int failingIndependents() {
    return Math.max(1, independents / 4);
  }

  /** How long a held-back child waits after the gateway recovered: one interval (the default). */
  public Duration settle() {
    return interval;
  }
}
