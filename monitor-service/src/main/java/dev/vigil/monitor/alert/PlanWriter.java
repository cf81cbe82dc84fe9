package dev.vigil.monitor.alert;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * Writes what a {@link RecordingPlan} decided, under the row locks it holds: the {@link SetWriter}
 * for several results, the {@link RowWriter} for one. Both write the same rows; the plan decides.
 * Nothing is committed here.
 */
sealed interface PlanWriter permits SetWriter, RowWriter {

  /** The writer for a plan of {@code results} results. */
  static PlanWriter of(int results, SetWriter set, RowWriter row) {
    return results == 1 ? row : set;
  }

  /**
   * Counts probes on, and closes, the incidents that were open before the plan, and tells each
   * {@code change} when its incident was opened and whether its FAILED was written.
   *
   * @throws IllegalStateException if an incident to close was not open
   */
  void updateIncidents(Connection connection, Instant now, List<IncidentChange> changes)
      throws SQLException;

  /** Writes new incidents, states, deadlines, health, history, outbox and location rows. */
  void write(Connection connection, RecordingPlan plan) throws SQLException;
}
