package dev.vigil.monitor.quiet;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Whether a service is quiet at an instant, as a pure function of its windows, the silences and the
 * instant; {@code until} is when the longest covering period ends (a later, adjacent period may
 * extend it: the answer is asked again then).
 *
 * @param reason what makes it quiet, e.g. {@code "maintenance window"} or {@code "silence <id>"}
 * @param until when that period ends
 */
public record Quiet(String reason, Instant until) {

  /** The quiet period covering {@code instant} for {@code service}, or empty when it is not. */
  public static Optional<Quiet> at(
      String service, List<Window> windows, List<Silence> silences, Instant instant) {
    Quiet found = null;
    for (Window window : windows) {
      Optional<Instant> end = window.coveringEnd(instant);
      if (end.isPresent() && (found == null || end.get().isAfter(found.until()))) {
        found = new Quiet("maintenance window", end.get());
      }
    }
    for (Silence silence : silences) {
      if (silence.covers(service, instant)
          && (found == null || silence.endsAt().isAfter(found.until()))) {
        found = new Quiet("silence " + silence.id(), silence.endsAt());
      }
    }
    return Optional.ofNullable(found);
  }
}
