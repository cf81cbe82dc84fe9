package dev.vigil.drills;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.vigil.drills.reconcile.DrillCounts;
import dev.vigil.drills.reconcile.FaultRecord;
import java.util.List;
import java.util.Map;

/**
 * The outcome of one drill.
 *
 * @param drill the drill's name
 * @param description what the drill does, in one sentence
 * @param counts the reconciliation of the drill's events
 * @param faults every fault injected, in order, with its recovery time
 * @param writeErrors outbox writes that failed and were retried (PostgreSQL down)
 * @param durationMs from the first event to the end of the drain
 * @param drainMs from the last commit until the receiver held every event (or the drain timed out)
 * @param chaos requests the chaos proxy handled per mode during the drill
 * @param notes anything unexpected the drill had to repair (a process that exited by itself)
 * @param error why the drill could not complete, or null
 */
public record DrillResult(
    String drill,
    String description,
    DrillCounts counts,
    List<FaultRecord> faults,
    long writeErrors,
    long durationMs,
    long drainMs,
    Map<String, Long> chaos,
    List<String> notes,
    String error) {

  /** Pass: the drill completed, nothing lost, nothing stored twice, order intact. */
  @JsonProperty("passed")
  public boolean passed() {
    return error == null && counts != null && counts.passed();
  }

  /** Faults whose process exit code shows a SIGKILL. */
  @JsonProperty("sigkills")
  public long sigkills() {
    return faults.stream().filter(f -> f.exitCode() == 137).count();
  }
}
