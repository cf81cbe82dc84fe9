package dev.vigil.monitor.alert;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * The quorum rule of a target probed from several locations, as a small pure function beside the
 * {@link AlertStateMachine} that runs each location's counters: the service's incident opens when
 * at least {@code quorum} fresh locations are failing and closes when fewer are. A stale location
 * (no result for longer than its bound) neither counts towards opening nor holds a close back.
 * Fewer fresh locations than the quorum is <em>degraded</em> monitoring: an incident can no longer
 * open, which must be shown, never taken for the service being up.
 */
public final class QuorumRule {
  private QuorumRule() {}

  /**
   * One location as the rule sees it.
   *
   * @param name the location name
   * @param failing past its failure threshold and not yet past its recovery threshold
   * @param fresh its last result is recent enough to count
   * @param lastStatus its last result's status, or null when it has none
   * @param lastError its last result's error, or null
   */
  public record Location(
      String name, boolean failing, boolean fresh, ProbeStatus lastStatus, String lastError) {}

  /**
   * What the rule decides.
   *
   * @param action OPEN or CLOSE the service's incident, or NONE
   * @param failing fresh failing locations
   * @param fresh fresh locations
   * @param degraded fewer fresh locations than the quorum
   */
  public record Verdict(
      AlertStateMachine.Action action, int failing, int fresh, boolean degraded) {}

  /** Decides for {@code locations} with {@code quorum}; {@code open}: the incident is open. */
  public static Verdict decide(Collection<Location> locations, int quorum, boolean open) {
    if (quorum < 1) {
      throw new IllegalArgumentException("quorum must be at least 1, was " + quorum);
    }
    int fresh = (int) locations.stream().filter(Location::fresh).count();
    int failing = (int) locations.stream().filter(l -> l.fresh() && l.failing()).count();
    AlertStateMachine.Action action = AlertStateMachine.Action.NONE;
    if (!open && failing >= quorum) {
      action = AlertStateMachine.Action.OPEN;
    } else if (open && failing < quorum) {
      action = AlertStateMachine.Action.CLOSE;
    }
    return new Verdict(action, failing, fresh, fresh < quorum);
  }

  /**
   * The per-location verdicts an event carries: every fresh location by name, "up" when its last
   * result was UP, otherwise its last error ("down" without one).
   */
  public static Map<String, String> verdicts(Collection<Location> locations) {
    Map<String, String> verdicts = new TreeMap<>();
    for (Location l : locations) {
      if (l.fresh()) {
        verdicts.put(
            l.name(),
            l.lastStatus() == ProbeStatus.UP
                ? "up"
                : l.lastError() == null || l.lastError().isBlank() ? "down" : l.lastError());
      }
    }
    return verdicts;
  }
}
