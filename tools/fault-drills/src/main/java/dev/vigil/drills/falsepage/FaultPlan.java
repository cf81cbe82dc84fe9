package dev.vigil.drills.falsepage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * The schedule of one drill, decided before it starts from a seed: single-location faults one after
 * another (never two locations impaired by them at once), and the real outages at fixed points,
 * which overlap whatever single-location fault runs then.
 *
 * @param faults single-location faults in order; a fault starts at its time or when the one before
 *     it has healed, whichever is later
 * @param outages real outages, by start time
 */
public record FaultPlan(List<Fault> faults, List<Fault> outages) {

  /** What a fault does. */
  public enum Kind {
    /** One location's path to every target is cut (a network partition of that location). */
    CUT,
    /** One location's path is cut for less than a probe interval. */
    BLIP,
    /** kill -9 of one location's monitor process, started again after {@code length}. */
    KILL,
    /** The target itself fails for every location. */
    OUTAGE
  }

  /**
   * One scheduled fault.
   *
   * @param kind what happens
   * @param location the location hit (null for an outage)
   * @param target the target index hit by an outage (-1 otherwise)
   * @param at when, from the start of the drill
   * @param length how long (for a kill: how long the process stays dead before it is started)
   */
  public record Fault(Kind kind, String location, int target, Duration at, Duration length) {
    public String describe() {
      return switch (kind) {
        case OUTAGE -> "outage of target " + target;
        case KILL -> "kill -9 monitor-" + location;
        case CUT, BLIP -> kind.name().toLowerCase(java.util.Locale.ROOT) + " " + location;
      };
    }
  }

  public FaultPlan {
    faults = List.copyOf(faults);
    outages = List.copyOf(outages);
  }

  /** The schedule for {@code options}: the same seed always gives the same plan. */
  public static FaultPlan of(FalsePageOptions options) {
    Random random = new Random(options.seed());
    long duration = options.duration().toMillis();
    long interval = options.interval().toMillis();
    List<Fault> faults = new ArrayList<>();
    // The first fault waits until every location has reported for a while.
    long at = 2 * interval;
    while (at < duration) {
      String location = options.locations().get(random.nextInt(options.locations().size()));
      double pick = random.nextDouble();
      Kind kind = pick < 0.4 ? Kind.CUT : pick < 0.75 ? Kind.BLIP : Kind.KILL;
      long length =
          switch (kind) {
            case CUT -> options.shortestCut().toMillis() + random.nextLong(3 * interval + 1);
            case BLIP -> 100 + random.nextLong(Math.max(1, options.longestBlip().toMillis() - 100));
            case KILL -> random.nextLong(2 * interval + 1);
            case OUTAGE -> throw new IllegalStateException("not a single-location fault");
          };
      if (at + length > duration) {
        break;
      }
      faults.add(new Fault(kind, location, -1, Duration.ofMillis(at), Duration.ofMillis(length)));
      at += length + interval / 2 + random.nextLong(interval * 3 / 2 + 1);
    }
    List<Fault> outages = new ArrayList<>();
    List<Integer> hit = new ArrayList<>();
    long outage = options.outageLength().toMillis();
    for (int i = 0; i < options.outages(); i++) {
      int target;
      do {
        target = random.nextInt(options.targets());
      } while (hit.contains(target));
      hit.add(target);
      long start = duration * (i + 1) / (options.outages() + 1) - outage / 2;
      outages.add(
          new Fault(
              Kind.OUTAGE, null, target, Duration.ofMillis(start), Duration.ofMillis(outage)));
    }
    outages.sort(Comparator.comparing(Fault::at));
    return new FaultPlan(faults, outages);
  }

  /** How many single-location faults of {@code kind} the plan holds. */
  public long count(Kind kind) {
    return faults.stream().filter(f -> f.kind() == kind).count();
  }
}
