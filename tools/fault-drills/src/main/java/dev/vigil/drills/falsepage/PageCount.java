package dev.vigil.drills.falsepage;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What arrived at the receiver, judged against the real outages.
 *
 * @param failed FAILED events received
 * @param recovered RECOVERED events received
 * @param falsePages FAILED events for a target without a real outage, plus any second FAILED of a
 *     target with one
 * @param falsePageTargets distinct targets paged without a real outage
 * @param missed real outages without a FAILED
 * @param unrecovered real outages whose FAILED has no RECOVERED after it
 */
public record PageCount(
    long failed,
    long recovered,
    long falsePages,
    long falsePageTargets,
    long missed,
    long unrecovered) {

  /** One webhook as the receiver stored it. */
  public record Received(String service, String kind) {}

  /** Counts {@code received} (in arrival order) against the targets that really failed. */
  public static PageCount of(List<Received> received, Set<String> outageTargets) {
    Map<String, Integer> failedBy = new HashMap<>();
    Map<String, Integer> recoveredBy = new HashMap<>();
    long failed = 0;
    long recovered = 0;
    for (Received r : received) {
      switch (r.kind()) {
        case "FAILED" -> {
          failed++;
          failedBy.merge(r.service(), 1, Integer::sum);
        }
        case "RECOVERED" -> {
          recovered++;
          recoveredBy.merge(r.service(), 1, Integer::sum);
        }
        default -> {
          // Other kinds (reminders, test events) are neither pages of an incident nor misses.
        }
      }
    }
    long falsePages = 0;
    long falseTargets = 0;
    for (Map.Entry<String, Integer> e : failedBy.entrySet()) {
      if (outageTargets.contains(e.getKey())) {
        falsePages += e.getValue() - 1;
      } else {
        falsePages += e.getValue();
        falseTargets++;
      }
    }
    long missed = outageTargets.stream().filter(t -> !failedBy.containsKey(t)).count();
    long unrecovered =
        outageTargets.stream()
            .filter(t -> failedBy.containsKey(t))
            .filter(t -> recoveredBy.getOrDefault(t, 0) < failedBy.get(t))
            .count();
    return new PageCount(failed, recovered, falsePages, falseTargets, missed, unrecovered);
  }

  /** Exactly the real outages paged and recovered, nothing else. */
  public boolean passed(int outages) {
    return failed == outages
        && recovered == outages
        && falsePages == 0
        && missed == 0
        && unrecovered == 0;
  }
}
