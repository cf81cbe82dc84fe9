package dev.vigil.monitor.alert;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;

/**
 * Writes the {@code location_state} rows a {@link RecordingPlan} moved, with one set-based
 * statement beside the {@link PlanWriter}'s, under the services' row locks the plan holds.
 */
final class LocationWriter {
  private LocationWriter() {}

  // The locations a plan moved, one row each (their last state), written under the services'
  // alert_state row locks the plan holds.
  private static final String LOCATIONS =
      """
      insert into location_state as l
             (service, location, consecutive_failures, consecutive_successes,
              failures_before_successes, failing, last_result_seq, last_pushed_started_at,
              last_status, last_error, recorded_at)
      select u.service, u.location, u.failures, u.successes, u.before, u.failing, u.seq,
             u.pushed::timestamptz, u.status, u.error, ?::timestamptz
        from unnest(?::text[], ?::text[], ?::int[], ?::int[], ?::int[], ?::boolean[],
                    ?::bigint[], ?::text[], ?::text[], ?::text[])
             as u(service, location, failures, successes, before, failing, seq, pushed, status,
                  error)
      on conflict (service, location) do update
         set consecutive_failures = excluded.consecutive_failures,
             consecutive_successes = excluded.consecutive_successes,
             failures_before_successes = excluded.failures_before_successes,
             failing = excluded.failing, last_result_seq = excluded.last_result_seq,
             last_pushed_started_at = excluded.last_pushed_started_at,
             last_status = excluded.last_status, last_error = excluded.last_error,
             recorded_at = excluded.recorded_at
      """;

  static void write(Connection connection, Instant now, List<RecordingPlan.Moved> moved)
      throws SQLException {
    try (PreparedStatement s = connection.prepareStatement(LOCATIONS)) {
      s.setObject(1, OffsetDateTime.ofInstant(now, ZoneOffset.UTC));
      s.setArray(2, SetWriter.array(connection, "text", moved, RecordingPlan.Moved::service));
      s.setArray(3, SetWriter.array(connection, "text", moved, m -> m.location().name()));
      s.setArray(
          4, SetWriter.array(connection, "int4", moved, m -> m.location().state().failures()));
      s.setArray(
          5, SetWriter.array(connection, "int4", moved, m -> m.location().state().successes()));
      s.setArray(
          6,
          SetWriter.array(
              connection, "int4", moved, m -> m.location().state().failuresBeforeSuccesses()));
      s.setArray(
          7,
          SetWriter.array(
              connection, "bool", moved, m -> m.location().state().openIncident() != null));
      s.setArray(8, SetWriter.array(connection, "int8", moved, m -> m.location().lastSeq()));
      s.setArray(
          9,
          SetWriter.array(
              connection, "text", moved, m -> Timestamps.text(m.location().pushedStartedAt())));
      s.setArray(
          10, SetWriter.array(connection, "text", moved, m -> m.location().lastStatus().name()));
      s.setArray(11, SetWriter.array(connection, "text", moved, m -> m.location().lastError()));
      s.executeUpdate();
    }
  }
}
