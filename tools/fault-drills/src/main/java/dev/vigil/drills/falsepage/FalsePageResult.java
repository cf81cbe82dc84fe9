package dev.vigil.drills.falsepage;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The outcome of one false-page drill.
 *
 * @param options the sizes it ran with
 * @param quorum the quorum in effect
 * @param atReceiver what the receiver got, judged against the real outages (the verdict)
 * @param atOutbox what the monitors committed to the outbox, judged likewise (where a difference to
 *     the receiver would point at delivery rather than at the decision)
 * @param faults every fault as executed, in order
 * @param probes requests the target server answered
 * @param startupEvents events the monitors committed before the faults began (start-up on a loaded
 *     machine can time probes out); not part of the verdict
 * @param durationMs from the first fault to the end of the settle wait
 * @param error why the drill could not complete, or null
 */
public record FalsePageResult(
    FalsePageOptions options,
    int quorum,
    PageCount atReceiver,
    PageCount atOutbox,
    List<Executed> faults,
    long probes,
    long startupEvents,
    long durationMs,
    String error) {

  /**
   * One fault as it happened.
   *
   * @param fault what it was
   * @param atMs when it started, from the start of the drill
   * @param lengthMs how long the location (or target) was impaired, for a kill until the restarted
   *     monitor answered /health
   * @param exitCode the killed process's exit code (137 = SIGKILL), -1 for other faults
   */
  public record Executed(String fault, long atMs, long lengthMs, int exitCode) {}

  public FalsePageResult {
    faults = List.copyOf(faults);
  }

  @JsonProperty("passed")
  public boolean passed() {
    return error == null && atReceiver != null && atReceiver.passed(options.outages());
  }

  /**
   * Count of executed faults whose description starts with {@code kind} (cut, blip, kill, outage).
   */
  public long count(String kind) {
    return faults.stream().filter(f -> f.fault().startsWith(kind)).count();
  }
}
