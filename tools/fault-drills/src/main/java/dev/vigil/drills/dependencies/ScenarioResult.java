package dev.vigil.drills.dependencies;

import java.util.Map;

/**
 * One scenario's verdict and its numbers.
 *
 * @param name a, b, c or d
 * @param title what the scenario does
 * @param criterion what passing means
 * @param passed whether it passed (false when it failed with an error)
 * @param numbers what was measured, in the order written
 * @param error why the scenario stopped early, or null
 */
public record ScenarioResult(
    String name,
    String title,
    String criterion,
    boolean passed,
    Map<String, Object> numbers,
    String error) {
  public ScenarioResult {
    numbers = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(numbers));
  }
}
