package dev.vigil.monitor.status;

import dev.vigil.kit.db.DatabaseException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The status page's reads, each page in one read-only repeatable-read transaction, so the services,
 * charts and incidents it shows are one consistent snapshot and every time is the database's
 * ({@code now()} is the transaction's start). Uptime and the hourly chart come from {@code
 * status_hourly}; a service's recent checks from {@code check_history} by its {@code (service, id)}
 * index.
 */
final class StatusReads {
  // Uptime windows count whole clock hours: the current one and the 23 (167, 719) before it.
  static final String UPTIME_SUMS =
      """
      select service,
             sum(up_count)   filter (where hour > now() - interval '24 hours') as up_day,
             sum(down_count) filter (where hour > now() - interval '24 hours') as down_day,
             sum(up_count)   filter (where hour > now() - interval '7 days')   as up_week,
             sum(down_count) filter (where hour > now() - interval '7 days')   as down_week,
             sum(up_count)   as up_month,
             sum(down_count) as down_month
        from status_hourly
      """;

  static final String LOCATIONS = LocationSql.LOCATIONS;

  static final String STATE = LocationSql.STATE;

  private static final String SERVICES =
      """
      with sums as (
        %s
         where hour > now() - interval '30 days' and (?::text is null or service = ?)
         group by service)
      select t.name, t.kind, t.enabled, h.status, h.since, h.checked_at, h.latency_ms, h.error,
             i.opened_at as incident_opened_at, %s as state, loc.location_states,
             loc.location_errors,
             s.up_day, s.down_day, s.up_week, s.down_week, s.up_month, s.down_month
        from targets t
        left join health_status h on h.service = t.name
        left join alert_state a on a.service = t.name
        left join incidents i on i.id = a.open_incident_id
        left join sums s on s.service = t.name
        %s
       where (?::text is null or t.name = ?)
       order by t.name
      """
          .formatted(UPTIME_SUMS, STATE, LOCATIONS);

  private static final String HOURS =
      """
      select service, hour, up_count, down_count, latency_sum_ms, latency_count
        from status_hourly
       where hour > now() - interval '24 hours' and (?::text is null or service = ?)
       order by service, hour
      """;

  private static final String INCIDENTS =
      """
      select id, service, opened_at, closed_at, first_error, last_error, probe_count,
             acknowledged_by, acknowledged_at, held_reason, announced_at
        from incidents
       where (?::text is null or service = ?)
         and (closed_at is null or closed_at > now() - interval '30 days')
       order by opened_at desc
       limit ?
      """;

  private static final String CHECKS =
      """
      select id, status, recorded_at, latency_ms, http_status, error, source
        from check_history
       where service = ?
       order by id desc
       limit ?
      """;

  // The objective of one service and the checks of its window (whole clock hours, as above).
  private static final String OBJECTIVE =
      """
      select t.slo, t.slo_window_days,
             coalesce(sum(h.up_count), 0) as up, coalesce(sum(h.down_count), 0) as down
        from targets t
        left join status_hourly h
          on h.service = t.name and h.hour > now() - make_interval(days => t.slo_window_days)
       where t.name = ? and t.slo is not null
       group by t.slo, t.slo_window_days
      """;

  /** One service's current state and uptime. */
  record ServiceRow(
      String name,
      String kind,
      boolean enabled,
      String state,
      Instant since,
      Instant checkedAt,
      Long latencyMs,
      String error,
      Instant incidentOpenedAt,
      Uptime day,
      Uptime week,
      Uptime month,
      String locations,
      String locationErrors) {

    /** A service probed from one place. */
    ServiceRow(
        String name,
        String kind,
        boolean enabled,
        String state,
        Instant since,
        Instant checkedAt,
        Long latencyMs,
        String error,
        Instant incidentOpenedAt,
        Uptime day,
        Uptime week,
        Uptime month) {
      this(
          name,
          kind,
          enabled,
          state,
          since,
          checkedAt,
          latencyMs,
          error,
          incidentOpenedAt,
          day,
          week,
          month,
          null,
          null);
    }
  }

  /** One hour of one service: checks and mean latency (null without latencies). */
  record HourRow(String service, Instant hour, long up, long down, Long meanLatencyMs) {}

  /** One incident, open when {@code closedAt} is null. */
  record IncidentRow(
      String id,
      String service,
      Instant openedAt,
      Instant closedAt,
      String firstError,
      String lastError,
      int probeCount,
      String acknowledgedBy,
      Instant acknowledgedAt,
      String heldParent) {}

  /** One recorded check. */
  record CheckRow(
      long id,
      String status,
      Instant recordedAt,
      Long latencyMs,
      Integer httpStatus,
      String error,
      String source) {}

  /**
   * What one page shows; {@code now} is the database's time of the snapshot; {@code objective} the
   * one service's SLO and error budget (null: none, or a page of many services).
   */
  record Snapshot(
      Instant now,
      List<ServiceRow> services,
      List<HourRow> hours,
      List<IncidentRow> incidents,
      List<CheckRow> checks,
      ErrorBudget objective) {

    /** A snapshot without an objective. */
    Snapshot(
        Instant now,
        List<ServiceRow> services,
        List<HourRow> hours,
        List<IncidentRow> incidents,
        List<CheckRow> checks) {
      this(now, services, hours, incidents, checks, null);
    }
  }

  private final DataSource dataSource;

  StatusReads(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Every service (or only {@code service}), their last 24 hours, incidents open or closed within
   * 30 days (newest first, at most {@code incidentLimit}) and, for one service, its last {@code
   * checkLimit} checks.
   */
  Snapshot read(String service, int incidentLimit, int checkLimit) {
    return inSnapshot(
        dataSource,
        "reading the status page" + (service == null ? "" : " of " + service),
        connection ->
            new Snapshot(
                now(connection),
                services(connection, service),
                hours(connection, service),
                incidents(connection, service, incidentLimit),
                service == null ? List.of() : checks(connection, service, checkLimit),
                service == null ? null : objective(connection, service)));
  }

  /** Reads of one page. */
  interface PageRead<T> {
    T read(Connection connection) throws SQLException;
  }

  /**
   * Runs {@code read} in one read-only repeatable-read transaction: one consistent snapshot, and
   * {@code now()} is the same database time for every statement of it.
   */
  static <T> T inSnapshot(DataSource dataSource, String what, PageRead<T> read) {
    try (Connection connection = dataSource.getConnection()) {
      connection.setReadOnly(true);
      connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      connection.setAutoCommit(false);
      try {
        T result = read.read(connection);
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new DatabaseException(what, e);
    }
  }

  static Instant now(Connection connection) throws SQLException {
    return rows(connection, "select now() as now", statement -> {}, rs -> instant(rs, "now"))
        .get(0);
  }

  interface Binder {
    void bind(PreparedStatement statement) throws SQLException;
  }

  interface RowMapper<T> {
    T map(ResultSet rs) throws SQLException;
  }

  static <T> List<T> rows(Connection connection, String sql, Binder binder, RowMapper<T> mapper)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      binder.bind(statement);
      List<T> rows = new ArrayList<>();
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          rows.add(mapper.map(rs));
        }
      }
      return rows;
    }
  }

  private static List<ServiceRow> services(Connection connection, String service)
      throws SQLException {
    return rows(
        connection,
        SERVICES,
        statement -> {
          for (int i = 1; i <= 4; i++) {
            statement.setString(i, service);
          }
        },
        StatusReads::serviceRow);
  }

  /** A row of {@link #SERVICES} (or of the overview's page query, which has the same columns). */
  static ServiceRow serviceRow(ResultSet rs) throws SQLException {
    return new ServiceRow(
        rs.getString("name"),
        rs.getString("kind"),
        rs.getBoolean("enabled"),
        rs.getString("state"),
        instant(rs, "since"),
        instant(rs, "checked_at"),
        (Long) rs.getObject("latency_ms"),
        rs.getString("error"),
        instant(rs, "incident_opened_at"),
        new Uptime(rs.getLong("up_day"), rs.getLong("down_day")),
        new Uptime(rs.getLong("up_week"), rs.getLong("down_week")),
        new Uptime(rs.getLong("up_month"), rs.getLong("down_month")),
        rs.getString("location_states"),
        rs.getString("location_errors"));
  }

  private static List<HourRow> hours(Connection connection, String service) throws SQLException {
    return rows(
        connection,
        HOURS,
        statement -> {
          statement.setString(1, service);
          statement.setString(2, service);
        },
        StatusReads::hourRow);
  }

  static HourRow hourRow(ResultSet rs) throws SQLException {
    long latencies = rs.getLong("latency_count");
    return new HourRow(
        rs.getString("service"),
        instant(rs, "hour"),
        rs.getLong("up_count"),
        rs.getLong("down_count"),
        latencies == 0 ? null : rs.getLong("latency_sum_ms") / latencies);
  }

  static List<IncidentRow> incidents(Connection connection, String service, int limit)
      throws SQLException {
    return rows(
        connection,
        INCIDENTS,
        statement -> {
          statement.setString(1, service);
          statement.setString(2, service);
          statement.setInt(3, limit);
        },
        StatusReads::incidentRow);
  }

  static IncidentRow incidentRow(ResultSet rs) throws SQLException {
    return new IncidentRow(
        rs.getString("id"),
        rs.getString("service"),
        instant(rs, "opened_at"),
        instant(rs, "closed_at"),
        rs.getString("first_error"),
        rs.getString("last_error"),
        rs.getInt("probe_count"),
        rs.getString("acknowledged_by"),
        instant(rs, "acknowledged_at"),
        heldParent(rs));
  }

  // The parent holding back an open incident's FAILED: its reason reads "parent <name> is down", or
  // "parent <name> is failing (not confirmed yet)" (a target name has no spaces).
  private static String heldParent(ResultSet rs) throws SQLException {
    String reason = rs.getString("held_reason");
    if (reason == null
        || rs.getObject("closed_at") != null
        || rs.getObject("announced_at") != null
        || !reason.startsWith("parent ")) {
      return null;
    }
    String rest = reason.substring("parent ".length());
    int end = rest.indexOf(' ');
    return end <= 0 ? null : rest.substring(0, end);
  }

  private static ErrorBudget objective(Connection connection, String service) throws SQLException {
    List<ErrorBudget> found =
        rows(
            connection,
            OBJECTIVE,
            statement -> statement.setString(1, service),
            rs ->
                new ErrorBudget(
                    rs.getBigDecimal("slo"),
                    rs.getInt("slo_window_days"),
                    new Uptime(rs.getLong("up"), rs.getLong("down"))));
    return found.isEmpty() ? null : found.getFirst();
  }

  private static List<CheckRow> checks(Connection connection, String service, int limit)
      throws SQLException {
    return rows(
        connection,
        CHECKS,
        statement -> {
          statement.setString(1, service);
          statement.setInt(2, limit);
        },
        rs ->
            new CheckRow(
                rs.getLong("id"),
                rs.getString("status"),
                instant(rs, "recorded_at"),
                (Long) rs.getObject("latency_ms"),
                (Integer) rs.getObject("http_status"),
                rs.getString("error"),
                rs.getString("source")));
  }

  static Instant instant(ResultSet rs, String column) throws SQLException {
    Timestamp timestamp = rs.getTimestamp(column);
    return timestamp == null ? null : timestamp.toInstant();
  }
}
