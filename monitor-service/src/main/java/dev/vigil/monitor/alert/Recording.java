package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;
import dev.vigil.monitor.quiet.Quiet;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Records one result or many on the caller's connection with a fixed number of statements whatever
 * their number: lock every service row (in the fixed order), let the {@link RecordingPlan} step
 * through the results, look up the quiet periods of the services that may have one (once, for all
 * of them), update the incidents that were open before, let the plan decide its events, and write
 * everything else with a {@link PlanWriter}: the row writer for one result, the set-based one for
 * more. Nothing is committed here; a failing statement leaves the caller's transaction to roll
 * back. Knows nothing of transactions, retries or metrics: the {@link RecordingTransactions} call
 * down into it, never the other way round.
 */
final class Recording {
  private final StateLock lock = new StateLock();
  private final QuietLookup quiet = new QuietLookup();
  private final SetWriter setWriter = new SetWriter();
  private final RowWriter rowWriter = new RowWriter();

  /**
   * Records {@code results} (in the order given, which must keep one service's results in their
   * order) and returns one entry per result in that order: its outcome, or an {@link
   * UnknownServiceException} for a service that is not a target (nothing of it written).
   *
   * @throws SQLException if a statement failed; the caller must roll back
   * @throws IllegalStateException if the connection is in auto-commit mode (the row locks would not
   *     hold across the statements)
   */
  List<Recorder.Recorded> record(Connection connection, List<ProbeResult> results)
      throws SQLException {
    if (connection.getAutoCommit()) {
      throw new IllegalStateException("recording needs a transaction (auto-commit is on)");
    }
    List<String> services = results.stream().map(ProbeResult::service).distinct().sorted().toList();
    int numbers = (int) results.stream().filter(r -> r.order() == null).count();
    PlanWriter writer = PlanWriter.of(results.size(), setWriter, rowWriter);
    StateLock.Held held = lock.lock(connection, services, numbers);
    RecordingPlan plan = new RecordingPlan(held);
    results.forEach(plan::add);
    List<String> opening = plan.opening();
    // The quiet period of every recorded service that may have one: it holds back an opening
    // incident's FAILED, and a check recorded while quiet is a maintenance check (counted apart
    // from uptime). Services without windows or silences cost no statement.
    List<String> mayBeQuiet =
        plan.accepted().isEmpty()
            ? List.of()
            : services.stream()
                .filter(s -> held.rows().containsKey(s) && held.rows().get(s).mayBeQuiet())
                .toList();
    Map<String, Optional<Quiet>> quietPeriods =
        mayBeQuiet.isEmpty() ? Map.of() : quiet.at(connection, mayBeQuiet, plan.now());
    List<IncidentChange> openBefore = plan.openBefore();
    if (!openBefore.isEmpty()) {
      writer.updateIncidents(connection, plan.now(), openBefore);
    }
    // Only services with parents (or children) cost a statement more.
    List<String> children = only(held, opening, StateLock.Row::hasParents);
    Map<String, Dependencies.Parents> parents =
        children.isEmpty() ? Map.of() : Dependencies.parents(connection, children);
    List<String> transitioning = only(held, plan.transitioning(), StateLock.Row::hasChildren);
    Map<String, AlertEvent.Impact> impact =
        transitioning.isEmpty()
            ? Map.of()
            : Dependencies.impact(connection, transitioning, plan.childStatuses());
    plan.decide(quietPeriods, parents, impact);
    if (!plan.accepted().isEmpty()) {
      writer.write(connection, plan);
    }
    List<String> closing = only(held, plan.closing(), StateLock.Row::hasChildren);
    if (!closing.isEmpty()) {
      // After the write, so a child opened in this plan and held by one of these is released too.
      Dependencies.release(connection, closing, plan.now());
    }
    return plan.recorded();
  }

  private static List<String> only(
      StateLock.Held held,
      List<String> services,
      java.util.function.Predicate<StateLock.Row> which) {
    return services.stream().filter(s -> which.test(held.rows().get(s))).toList();
  }

  /**
   * Records {@code result} alone like {@link #record(Connection, List)}.
   *
   * @throws UnknownServiceException if the service is not a target (nothing written)
   */
  RecordOutcome record(Connection connection, ProbeResult result) throws SQLException {
    Recorder.Recorded recorded = record(connection, List.of(result)).getFirst();
    if (!recorded.committed()) {
      throw recorded.failure();
    }
    return recorded.outcome();
  }
}
