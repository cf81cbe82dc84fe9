package dev.vigil.drills.dependencies;

import java.util.List;

/**
 * A dependencies drill: its options, each scenario's result, how long it ran and how many probes
 * the service farm answered.
 */
public record DependenciesResult(
    DependenciesOptions options,
    List<ScenarioResult> scenarios,
    long durationMs,
    long probes,
    String error) {
  public DependenciesResult {
    scenarios = List.copyOf(scenarios);
  }

  /** Every scenario asked for ran and passed. */
  public boolean passed() {
    return error == null
        && scenarios.size() == options.scenarios().size()
        && scenarios.stream().allMatch(ScenarioResult::passed);
  }
}
