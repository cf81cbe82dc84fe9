package dev.vigil.monitor.alert;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Locks the {@code alert_state} rows of one service or many with one statement, the lock every
 * writer of a service's state and incidents takes first ({@link Recording}, {@link
 * IncidentCloser}), and reads under it the database's time and new {@code result_order} numbers.
 */
final class StateLock {

  /**
   * One locked state row with its target's thresholds.
   *
   * @param state counters and open incident
   * @param lastResultSeq the number of the last recorded result, or null
   * @param lastPushedStartedAt the last pushed startedAt (the checker's clock), or null
   * @param lastError the last error recorded, or null
   * @param mayBeQuiet whether the target has maintenance windows of its own, or a prefix window or
   *     a silence that is not over may match it: only then is its quiet period looked up
   */
  record Row(
      AlertStateMachine.State state,
      Long lastResultSeq,
      Instant lastPushedStartedAt,
      String lastError,
      int failureThreshold,
      int recoveryThreshold,
      List<String> locations,
      int quorum,
      Duration staleAfter,
      boolean hasParents,
      boolean hasChildren,
      boolean mayBeQuiet) {

    /** Whether the target is probed from several locations (its incident is decided by quorum). */
    boolean located() {
      return !locations.isEmpty();
    }
  }

  /**
   * The locked rows by service (an unknown service is missing), the database's time once all were
   * locked (null when none was), and the new result numbers in increasing order.
   */
  record Held(
      Map<String, Row> rows,
      Instant now,
      long[] orders,
      Map<String, Map<String, LocationRun>> locations) {}

  // Rows are locked in byte order of the name (collate "C": the order Java's String.compareTo
  // gives for the ASCII names targets have), the fixed order that keeps two transactions from
  // deadlocking. The time and the numbers are taken in a one-row CTE that first counts every
  // locked row, so they are those of the moment the transaction holds all its services: both
  // increase in commit order per service. The thresholds come from the statement's snapshot of
  // targets: a concurrent threshold change applies from the next result on. has_children asks
  // once per statement which targets are parents (an uncorrelated subquery over the partial index
  // targets_with_parents, V13): asked per locked row, the planner scanned every target for each,
  // and 10,000 targets probed every 10 s fell 5-10 s behind. may_be_quiet is a superset of the
  // services quiet at the recording's time (a silence over since the transaction began still
  // counts): maintenance windows and silences are few rows, so asking per locked row is cheap, and
  // it spares the quiet lookup's two statements for every recording of services that have none.
  private static final String LOCKED_COLUMNS =
      """
          select a.service, a.consecutive_failures, a.consecutive_successes,
                 a.failures_before_successes, a.open_incident_id, a.last_result_seq,
                 a.last_pushed_started_at, a.last_error, t.failure_threshold, t.recovery_threshold,
                 t.locations, coalesce(t.quorum, cardinality(t.locations) / 2 + 1) as quorum,
                 3 * t.interval_ms + t.timeout_ms as stale_after_ms,
                 cardinality(t.depends_on) > 0 as has_parents,
                 a.service = any (array(select distinct unnest(c.depends_on) from targets c
                                         where cardinality(c.depends_on) > 0)) as has_children,
                 jsonb_array_length(t.maintenance) > 0
                   or exists (select 1 from maintenance_windows w
                               where starts_with(a.service, w.prefix))
                   or exists (select 1 from silences x
                               where x.ends_at > now()
                                 and (x.service = a.service or starts_with(a.service, x.prefix)))
                   as may_be_quiet
            from alert_state a
            join targets t on t.name = a.service
      """;

  private static final String LOCK =
      """
      with locked as materialized (
      %s
           where a.service = any(?::text[])
           order by a.service collate "C"
             for update of a
      ), held as materialized (
          select clock_timestamp() as now,
                 array(select nextval('result_order') from generate_series(1, ?)
                        where n.locked >= 0) as orders
            from (select count(*) as locked from locked) n
      )
      select locked.*, held.now, held.orders from locked cross join held
      """
          .formatted(LOCKED_COLUMNS);

  // The same for one service and at most one number, with scalar parameters (a single result's
  // lock): the outer select runs once the materialized CTE holds the row.
  private static final String LOCK_ONE =
      """
      with locked as materialized (
      %s
           where a.service = ?
             for update of a
      )
      select locked.*, clock_timestamp() as now,
             case when ? then array[nextval('result_order')] else array[]::bigint[] end as orders
        from locked
      """
          .formatted(LOCKED_COLUMNS);

  /**
   * Locks the rows of {@code services} and takes {@code numbers} new result numbers. The caller's
   * transaction holds the locks until it ends.
   */
  Held lock(Connection connection, List<String> services, int numbers) throws SQLException {
    Map<String, Row> rows = HashMap.newHashMap(services.size());
    Instant now = null;
    long[] orders = new long[0];
    boolean one = services.size() == 1 && numbers <= 1;
    try (PreparedStatement statement = connection.prepareStatement(one ? LOCK_ONE : LOCK)) {
      if (one) {
        statement.setString(1, services.getFirst());
        statement.setBoolean(2, numbers == 1);
      } else {
        statement.setArray(1, connection.createArrayOf("text", services.toArray()));
        statement.setInt(2, numbers);
      }
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          if (now == null) {
            now = rs.getObject("now", OffsetDateTime.class).toInstant();
            Long[] numbered = (Long[]) rs.getArray("orders").getArray();
            orders = new long[numbered.length];
            for (int i = 0; i < numbered.length; i++) {
              orders[i] = numbered[i];
            }
          }
          OffsetDateTime pushed = rs.getObject(7, OffsetDateTime.class);
          rows.put(
              rs.getString(1),
              new Row(
                  new AlertStateMachine.State(
                      rs.getInt(2), rs.getInt(3), rs.getInt(4), rs.getObject(5, UUID.class)),
                  rs.getObject(6, Long.class),
                  pushed == null ? null : pushed.toInstant(),
                  rs.getString(8),
                  rs.getInt(9),
                  rs.getInt(10),
                  locations(rs.getArray("locations")),
                  rs.getInt("quorum"),
                  Duration.ofMillis(rs.getLong("stale_after_ms")),
                  rs.getBoolean("has_parents"),
                  rs.getBoolean("has_children"),
                  rs.getBoolean("may_be_quiet")));
        }
      }
    }
    Arrays.sort(orders);
    List<String> located =
        rows.entrySet().stream()
            .filter(e -> e.getValue().located())
            .map(Map.Entry::getKey)
            .toList();
    Map<String, Map<String, LocationRun>> locationRuns =
        located.isEmpty() ? Map.of() : readLocations(connection, located, rows, now);
    return new Held(rows, now, orders, locationRuns);
  }

  private static List<String> locations(java.sql.Array stored) throws SQLException {
    return stored == null ? List.of() : List.of((String[]) stored.getArray());
  }

  // Read after the alert_state rows are locked: every writer of location_state holds that lock.
  private static final String LOCATIONS =
      """
      select service, location, consecutive_failures, consecutive_successes,
             failures_before_successes, failing, last_result_seq, last_pushed_started_at,
             last_status, last_error, recorded_at
        from location_state
       where service = any(?::text[])
      """;

  /**
   * The locations of the located services: every location with a recorded result, and every listed
   * one (without a result yet: never fresh).
   */
  private static Map<String, Map<String, LocationRun>> readLocations(
      Connection connection, List<String> services, Map<String, Row> rows, Instant now)
      throws SQLException {
    Map<String, Map<String, LocationRun>> runs = new HashMap<>();
    for (String service : services) {
      Map<String, LocationRun> byName = new java.util.TreeMap<>();
      Row row = rows.get(service);
      row.locations().forEach(l -> byName.put(l, LocationRun.unseen(l, row.staleAfter())));
      runs.put(service, byName);
    }
    try (PreparedStatement statement = connection.prepareStatement(LOCATIONS)) {
      statement.setArray(1, connection.createArrayOf("text", services.toArray()));
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          String service = rs.getString(1);
          OffsetDateTime pushed = rs.getObject(8, OffsetDateTime.class);
          runs.get(service)
              .put(
                  rs.getString(2),
                  new LocationRun(
                      rs.getString(2),
                      rows.get(service).staleAfter(),
                      new AlertStateMachine.State(
                          rs.getInt(3),
                          rs.getInt(4),
                          rs.getInt(5),
                          rs.getBoolean(6) ? LocationRun.FAILING : null),
                      rs.getObject(7, Long.class),
                      pushed == null ? null : pushed.toInstant(),
                      ProbeStatus.valueOf(rs.getString(9)),
                      rs.getString(10),
                      rs.getObject(11, OffsetDateTime.class).toInstant()));
        }
      }
    }
    return runs;
  }
}
