package dev.vigil.monitor.api;

import dev.vigil.kit.DatabaseReadiness;
import dev.vigil.kit.db.DatabaseException;
import dev.vigil.kit.http.Health;
import dev.vigil.monitor.alert.LocationReads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** Read-only queries behind the API's GET endpoints; results are JSON-ready maps. */
final class StatusQueries {
  private static final String SERVICES =
      """
      select t.name, t.kind, t.enabled, a.consecutive_failures, a.consecutive_successes,
             a.open_incident_id, i.opened_at, h.status, h.since, h.checked_at, h.latency_ms,
             h.http_status, h.error, h.source, s.unreadable
        from targets t
        join alert_state a on a.service = t.name
        left join probe_schedule s on s.target = t.name
        left join incidents i on i.id = a.open_incident_id
        left join health_status h on h.service = t.name
       where (?::text is null or t.name = ?) and (?::text is null or t.name > ?)
       order by t.name
       limit ?
      """;

  private static final String HISTORY =
      """
      select id, status, started_at, recorded_at, latency_ms, http_status, error, source,
             maintenance
        from check_history
       where service = ? and (?::bigint is null or id < ?)
       order by id desc
       limit ?
      """;

  private static final String INCIDENTS =
      """
      select id, service, opened_at, closed_at, first_error, last_error, probe_count,
             announced_at, acknowledged_by, acknowledged_at, held_reason
        from incidents
       where (?::text is null or service = ?)
         and (? = 'all' or (? = 'open') = (closed_at is null))
       order by opened_at desc
       limit ?
      """;

  private final DataSource dataSource;
  private final DatabaseReadiness readiness;
  private final Clock clock;
  private final LocationReads locations;

  StatusQueries(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.locations = new LocationReads(dataSource);
    this.readiness = new DatabaseReadiness(dataSource, DatabaseReadiness.DEFAULT_TIMEOUT);
    this.clock = clock;
  }

  /** The service named {@code onlyName} (a list of one, or empty). */
  List<Map<String, Object>> services(String onlyName) {
    return services(onlyName, null, 1);
  }

  /**
   * At most {@code limit} services in name order, after the name {@code after} (or from the first).
   */
  List<Map<String, Object>> services(String after, int limit) {
    return services(null, after, limit);
  }

  private List<Map<String, Object>> services(String onlyName, String after, int limit) {
    List<Map<String, Object>> services = rows(onlyName, after, limit);
    Map<String, LocationReads.Target> located =
        onlyName != null
            ? java.util.Optional.ofNullable(locations.of(onlyName))
                .map(t -> Map.of(t.service(), t))
                .orElse(Map.of())
            : locations.all();
    services.forEach(
        service -> LocationViews.add(service, located.get((String) service.get("service"))));
    return services;
  }

  private List<Map<String, Object>> rows(String onlyName, String after, int limit) {
    return query(
        "listing services",
        SERVICES,
        statement -> {
          statement.setString(1, onlyName);
          statement.setString(2, onlyName);
          statement.setString(3, after);
          statement.setString(4, after);
          statement.setInt(5, limit);
        },
        rs -> {
          Map<String, Object> service = new LinkedHashMap<>();
          service.put("service", rs.getString("name"));
          service.put("kind", rs.getString("kind"));
          service.put("enabled", rs.getBoolean("enabled"));
          service.put("state", rs.getString("status") == null ? "UNKNOWN" : rs.getString("status"));
          service.put("consecutiveFailures", rs.getInt("consecutive_failures"));
          service.put("consecutiveSuccesses", rs.getInt("consecutive_successes"));
          Object incident = rs.getObject("open_incident_id");
          if (incident != null) {
            service.put(
                "openIncident",
                Map.of("incidentId", incident, "openedAt", instant(rs, "opened_at")));
          }
          if (rs.getString("unreadable") != null) {
            // Not probed until fixed: say so rather than show a stale state as current.
            service.put("definitionError", rs.getString("unreadable"));
          }
          if (rs.getString("status") != null) {
            Map<String, Object> last = new LinkedHashMap<>();
            last.put("status", rs.getString("status"));
            last.put("since", instant(rs, "since"));
            last.put("checkedAt", instant(rs, "checked_at"));
            last.put("latencyMs", rs.getObject("latency_ms"));
            last.put("httpStatus", rs.getObject("http_status"));
            last.put("error", rs.getString("error"));
            last.put("source", rs.getString("source"));
            service.put("lastCheck", last);
          }
          return service;
        });
  }

  List<Map<String, Object>> history(String service, Long before, int limit) {
    return query(
        "reading history of " + service,
        HISTORY,
        statement -> {
          statement.setString(1, service);
          statement.setObject(2, before);
          statement.setObject(3, before);
          statement.setInt(4, limit);
        },
        rs -> {
          Map<String, Object> check = new LinkedHashMap<>();
          check.put("id", rs.getLong("id"));
          check.put("status", rs.getString("status"));
          check.put("startedAt", instant(rs, "started_at"));
          check.put("recordedAt", instant(rs, "recorded_at"));
          check.put("latencyMs", rs.getObject("latency_ms"));
          check.put("httpStatus", rs.getObject("http_status"));
          check.put("error", rs.getString("error"));
          check.put("source", rs.getString("source"));
          // Recorded in a maintenance window or silence: counted apart from uptime.
          check.put("maintenance", rs.getBoolean("maintenance"));
          return check;
        });
  }

  List<Map<String, Object>> incidents(String service, String state, int limit) {
    Instant now = clock.instant();
    return query(
        "listing incidents",
        INCIDENTS,
        statement -> {
          statement.setString(1, service);
          statement.setString(2, service);
          statement.setString(3, state);
          statement.setString(4, state);
          statement.setInt(5, limit);
        },
        rs -> {
          Map<String, Object> incident = new LinkedHashMap<>();
          Instant opened = instant(rs, "opened_at");
          Instant closed = instant(rs, "closed_at");
          incident.put("incidentId", rs.getObject("id"));
          incident.put("service", rs.getString("service"));
          incident.put("state", closed == null ? "open" : "closed");
          incident.put("openedAt", opened);
          incident.put("closedAt", closed);
          Duration duration = Duration.between(opened, closed == null ? now : closed);
          incident.put("duration", duration.isNegative() ? Duration.ZERO : duration);
          incident.put("firstError", rs.getString("first_error"));
          incident.put("lastError", rs.getString("last_error"));
          incident.put("probeCount", rs.getInt("probe_count"));
          incident.put("announcedAt", instant(rs, "announced_at"));
          // Why its FAILED was not written (yet): a quiet period, or "parent gateway is down".
          incident.put("heldReason", rs.getString("held_reason"));
          incident.put("acknowledgedBy", rs.getString("acknowledged_by"));
          incident.put("acknowledgedAt", instant(rs, "acknowledged_at"));
          return incident;
        });
  }

  private static final String UNREADABLE =
      """
      select target from probe_schedule where unreadable is not null order by target limit 20
      """;

  /**
   * The {@code targets} check of /health: UP (the monitor works; an unreadable definition is not a
   * reason to take it out of service), with a detail naming up to 20 stored targets whose
   * definition cannot be read and which are therefore not probed.
   */
  Health.Check unreadableTargets() {
    List<String> names = new ArrayList<>();
    query(
        "listing unreadable targets",
        UNREADABLE,
        statement -> {},
        rs -> {
          names.add(rs.getString(1));
          return Map.of();
        });
    if (names.isEmpty()) {
      return Health.Check.of(true);
    }
    return new Health.Check(
        Health.UP,
        "stored definitions that cannot be read, not probed (see /api/services definitionError): "
            + String.join(", ", names),
        Map.of("unreadable", names));
  }

  /** The {@code locations} check of /health (see {@link LocationViews#health}). */
  Health.Check degradedTargets() {
    return LocationViews.health(locations.degraded());
  }

  /** Whether the database answers within {@link DatabaseReadiness#DEFAULT_TIMEOUT}. */
  boolean databaseReachable() {
    return readiness.answers();
  }

  private interface Binder {
    void bind(PreparedStatement statement) throws SQLException;
  }

  private interface RowMapper {
    Map<String, Object> map(ResultSet rs) throws SQLException;
  }

  private List<Map<String, Object>> query(
      String doing, String sql, Binder binder, RowMapper mapper) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      binder.bind(statement);
      List<Map<String, Object>> rows = new ArrayList<>();
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          rows.add(mapper.map(rs));
        }
      }
      return rows;
    } catch (SQLException e) {
      throw new DatabaseException(doing, e);
    }
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    Timestamp timestamp = rs.getTimestamp(column);
    return timestamp == null ? null : timestamp.toInstant();
  }
}
