package dev.vigil.monitor.status;

import dev.vigil.monitor.quiet.QuietRules;
import dev.vigil.monitor.quiet.Window;
import java.sql.Array;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The overview's reads at any number of services, in one read-only repeatable-read transaction: one
 * page of services (down first, then by name; optionally one state and a name prefix), their uptime
 * sums and hourly buckets by the {@code status_hourly (service, hour)} key for that page's names
 * only, the newest incidents by {@code incidents_opened}, and the totals for the headline. The cost
 * of a page does not grow with the history: the only per-service pass is over the small
 * current-state rows ({@code targets}, {@code health_status}, {@code alert_state}).
 */
final class OverviewReads {
  private static final String STATE = StatusReads.STATE;

  private static final String PAGE =
      """
      with listed as (
        select t.name, t.kind, t.enabled, h.status, h.since, h.checked_at, h.latency_ms, h.error,
               a.open_incident_id, %1$s as state, loc.location_states, loc.location_errors
          from targets t
          left join health_status h on h.service = t.name
          left join alert_state a on a.service = t.name
          %2$s
         where starts_with(t.name, ?)
      )
      select l.*, i.opened_at as incident_opened_at, count(*) over () as matching,
             null::bigint as up_day, null::bigint as down_day, null::bigint as up_week,
             null::bigint as down_week, null::bigint as up_month, null::bigint as down_month
        from listed l
        left join incidents i on i.id = l.open_incident_id
       where (?::text is null or l.state = ?)
       order by case l.state when 'DOWN' then 0 when 'DEGRADED' then 1 when 'UNKNOWN' then 1
                             when 'UP' then 2 else 3 end,
                l.name
       limit ? offset ?
      """
          .formatted(STATE, StatusReads.LOCATIONS);

  // Whole clock hours, as on a service's page.
  static final String SUMS =
      StatusReads.UPTIME_SUMS
          + """
           where service = any(?) and hour > now() - interval '30 days'
           group by service
          """;

  static final String HOURS =
      """
      select service, hour, up_count, down_count, latency_sum_ms, latency_count
        from status_hourly
       where service = any(?) and hour > now() - interval '24 hours'
       order by service, hour
      """;

  private static final String TOTALS =
      """
      select count(*) as services,
             count(*) filter (where t.enabled and h.status = 'DOWN') as down,
             max(h.checked_at) as last_check
        from targets t
        left join health_status h on h.service = t.name
      """;

  // Enabled services that are down, with their own windows; the prefix windows are read apart.
  private static final String DOWN_WINDOWS =
      """
      select t.name, t.maintenance::text
        from targets t
        join health_status h on h.service = t.name
       where t.enabled and h.status = 'DOWN'
      """;

  private static final String PREFIX_WINDOWS =
      "select prefix, definition::text from maintenance_windows";

  // Every ongoing incident (up to a bound), then the newest closed ones up to the limit; with the
  // counts the page needs to say what it leaves out.
  private static final String INCIDENTS =
      """
      with recent as (
          select * from incidents
           where closed_at is null or closed_at > now() - interval '30 days'
      )
      select id, service, opened_at, closed_at, first_error, last_error, probe_count,
             acknowledged_by, acknowledged_at, held_reason, announced_at,
             count(*) over () as total, count(*) filter (where closed_at is null) over () as open
        from recent
       order by (closed_at is null) desc, opened_at desc
       limit least(?, greatest(?, (select count(*) from recent where closed_at is null)))
      """;

  /** Most ongoing incidents the overview lists (beyond that it says how many it leaves out). */
  static final int MAX_ONGOING_LISTED = 500;

  /**
   * Every service's count, those down (not counting those in a maintenance window), those down in a
   * maintenance window, and the newest check of any.
   */
  record Totals(long services, long down, long inMaintenance, Instant lastCheck) {}

  /** How many incidents the 30 days hold, ongoing among them, next to those listed. */
  record IncidentCounts(long total, long ongoing) {}

  /**
   * One page: {@code snapshot} has the page's services (uptime filled in), their hours and the
   * incidents listed (every ongoing one first, then the newest); {@code matching} counts the
   * services the filter selects on every page; {@code inMaintenance} names the down services whose
   * maintenance window covers now.
   */
  record Page(
      StatusReads.Snapshot snapshot,
      long matching,
      Totals totals,
      Set<String> inMaintenance,
      IncidentCounts incidentCounts) {}

  private final DataSource dataSource;

  OverviewReads(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  Page read(OverviewQuery query, int incidentLimit) {
    return StatusReads.inSnapshot(
        dataSource,
        "reading the status overview",
        connection -> read(connection, query, incidentLimit));
  }

  private static Page read(Connection connection, OverviewQuery query, int incidentLimit)
      throws SQLException {
    Instant now = StatusReads.now(connection);
    long[] matching = {0};
    List<StatusReads.ServiceRow> listed =
        page(connection, query, OverviewQuery.PAGE_SIZE, query.offset(), matching);
    if (listed.isEmpty() && query.page() > 1) {
      // Past the last page: no row carried the count, so count on the first page instead.
      page(connection, query, 1, 0, matching);
    }
    String[] names = listed.stream().map(StatusReads.ServiceRow::name).toArray(String[]::new);
    Array nameArray = connection.createArrayOf("text", names);
    List<StatusReads.ServiceRow> services = new ArrayList<>(listed.size());
    Map<String, Uptime[]> uptimes = new HashMap<>();
    StatusReads.rows(
        connection,
        SUMS,
        statement -> statement.setArray(1, nameArray),
        rs ->
            uptimes.put(
                rs.getString("service"),
                new Uptime[] {
                  new Uptime(rs.getLong("up_day"), rs.getLong("down_day")),
                  new Uptime(rs.getLong("up_week"), rs.getLong("down_week")),
                  new Uptime(rs.getLong("up_month"), rs.getLong("down_month"))
                }));
    for (StatusReads.ServiceRow row : listed) {
      Uptime[] u = uptimes.get(row.name());
      services.add(u == null ? row : withUptime(row, u));
    }
    List<StatusReads.HourRow> hours =
        StatusReads.rows(
            connection, HOURS, statement -> statement.setArray(1, nameArray), StatusReads::hourRow);
    long[] counts = {0, 0};
    List<StatusReads.IncidentRow> incidents =
        StatusReads.rows(
            connection,
            INCIDENTS,
            statement -> {
              statement.setInt(1, MAX_ONGOING_LISTED);
              statement.setInt(2, incidentLimit);
            },
            rs -> {
              counts[0] = rs.getLong("total");
              counts[1] = rs.getLong("open");
              return StatusReads.incidentRow(rs);
            });
    Set<String> inMaintenance = downInMaintenance(connection, now);
    Totals totals =
        StatusReads.rows(
                connection,
                TOTALS,
                statement -> {},
                rs ->
                    new Totals(
                        rs.getLong("services"),
                        rs.getLong("down") - inMaintenance.size(),
                        inMaintenance.size(),
                        StatusReads.instant(rs, "last_check")))
            .get(0);
    return new Page(
        new StatusReads.Snapshot(now, services, hours, incidents, List.of()),
        matching[0],
        totals,
        inMaintenance,
        new IncidentCounts(counts[0], counts[1]));
  }

  /**
   * The enabled, down services that a maintenance window (their own or a prefix window) covers at
   * {@code now}: shown as in maintenance, not counted as down. Silences do not count: they only
   * keep the pager quiet.
   */
  static Set<String> downInMaintenance(Connection connection, Instant now) throws SQLException {
    Map<String, List<Window>> prefixes = new HashMap<>();
    StatusReads.rows(
        connection,
        PREFIX_WINDOWS,
        statement -> {},
        rs ->
            prefixes
                .computeIfAbsent(rs.getString(1), p -> new ArrayList<>())
                .addAll(QuietRules.stored(rs.getString(2))));
    Set<String> covered = new HashSet<>();
    StatusReads.rows(
        connection,
        DOWN_WINDOWS,
        statement -> {},
        rs -> {
          String name = rs.getString(1);
          List<Window> windows = new ArrayList<>();
          if (rs.getString(2) != null) {
            windows.addAll(QuietRules.stored(rs.getString(2)));
          }
          prefixes.forEach(
              (prefix, list) -> {
                if (name.startsWith(prefix)) {
                  windows.addAll(list);
                }
              });
          if (windows.stream().anyMatch(w -> w.coveringEnd(now).isPresent())) {
            covered.add(name);
          }
          return name;
        });
    return covered;
  }

  /** One page of {@link #PAGE}; {@code matching[0]} gets the count of every matching service. */
  private static List<StatusReads.ServiceRow> page(
      Connection connection, OverviewQuery query, int limit, int offset, long[] matching)
      throws SQLException {
    return StatusReads.rows(
        connection,
        PAGE,
        statement -> {
          statement.setString(1, query.prefix());
          statement.setString(2, query.state());
          statement.setString(3, query.state());
          statement.setInt(4, limit);
          statement.setInt(5, offset);
        },
        rs -> {
          matching[0] = rs.getLong("matching");
          return StatusReads.serviceRow(rs);
        });
  }

  private static StatusReads.ServiceRow withUptime(StatusReads.ServiceRow row, Uptime[] u) {
    return new StatusReads.ServiceRow(
        row.name(),
        row.kind(),
        row.enabled(),
        row.state(),
        row.since(),
        row.checkedAt(),
        row.latencyMs(),
        row.error(),
        row.incidentOpenedAt(),
        u[0],
        u[1],
        u[2],
        row.locations(),
        row.locationErrors());
  }
}
