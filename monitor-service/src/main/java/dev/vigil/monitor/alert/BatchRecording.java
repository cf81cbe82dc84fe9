package dev.vigil.monitor.alert;

import dev.vigil.monitor.quiet.Quiet;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Records results on the caller's connection with a fixed number of statements whatever their
 * number: lock every service row (in the fixed order), read the quiet periods of services whose
 * incident opens, update the incidents that were open before, write everything else. Nothing is
 * committed here; a failing statement leaves the caller's transaction to roll back.
 */
final class BatchRecording {
  private final BatchSql sql = new BatchSql();
  private final BatchQuiet quiet = new BatchQuiet();

  /**
   * Records {@code results} (in the order given, which must keep one service's results in their
   * order) and returns one entry per result in that order: its outcome, or an {@link
   * UnknownServiceException} for a service that is not a target (nothing of it written).
   *
   * @throws SQLException if a statement failed; the caller must roll back
   */
  List<Recorder.Recorded> record(Connection connection, List<ProbeResult> results)
      throws SQLException {
    List<String> services = results.stream().map(ProbeResult::service).distinct().sorted().toList();
    int numbers = (int) results.stream().filter(r -> r.order() == null).count();
    BatchPlan plan = new BatchPlan(sql.lock(connection, services, numbers));
    results.forEach(plan::add);
    List<String> opening = plan.opening();
    Map<String, Optional<Quiet>> quietPeriods =
        opening.isEmpty() ? Map.of() : quiet.at(connection, opening, plan.now());
    List<BatchPlan.Touched> touched = plan.touched();
    Map<UUID, BatchSql.Updated> updated =
        touched.isEmpty() ? Map.of() : sql.updateIncidents(connection, plan.now(), touched);
    plan.events(quietPeriods, updated);
    if (!plan.accepted().isEmpty()) {
      sql.write(connection, plan);
    }
    return plan.recorded();
  }
}
