package dev.vigil.monitor.alert;

import dev.vigil.kit.db.DatabaseException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * What the API, the status page, /health and the metric show of targets probed from several
 * locations: each location's state and last error, and whether monitoring is <em>degraded</em>
 * (fewer fresh locations than the quorum, so an incident could not open). Freshness is judged by
 * the database's clock with the bound the recorder uses (3 intervals plus the timeout).
 */
public final class LocationReads {

  /**
   * One location of a target.
   *
   * @param location its name
   * @param state {@code up}, {@code counting} (failing below the threshold), {@code failing}, or,
   *     when it does not count, {@code stale} (no recent result) or {@code unseen} (never one)
   * @param lastError its last result's error (null when UP or none)
   * @param recordedAt when its last result was recorded, or null
   */
  public record Location(String location, String state, String lastError, Instant recordedAt) {
    public boolean fresh() {
      return !state.equals("stale") && !state.equals("unseen");
    }
  }

  /** A target's locations, quorum and whether its monitoring is degraded. */
  public record Target(String service, int quorum, List<Location> locations) {
    public long fresh() {
      return locations.stream().filter(Location::fresh).count();
    }

    public boolean degraded() {
      return fresh() < quorum;
    }
  }

  // Listed locations and every location with a recorded result (a remote checker's included).
  private static final String READ =
      """
      select t.name, coalesce(t.quorum, cardinality(t.locations) / 2 + 1) as quorum, x.location,
             l.failing, l.last_status, l.last_error, l.recorded_at,
             l.recorded_at >= now() - make_interval(secs => (3 * t.interval_ms + t.timeout_ms)
                                                            / 1000.0) as fresh
        from targets t
        cross join lateral (select unnest(t.locations) as location
                            union
                            select location from location_state where service = t.name) x
        left join location_state l on l.service = t.name and l.location = x.location
       where t.locations is not null and t.enabled and (?::text is null or t.name = ?)
       order by t.name, x.location
      """;

  // The fresh locations of one located target, read under its row lock (the announcer's).
  private static final String FRESH =
      """
      select l.location, l.last_status, l.last_error
        from targets t
        join location_state l on l.service = t.name
       where t.name = ? and t.locations is not null
         and l.recorded_at >= now() - make_interval(secs => (3 * t.interval_ms + t.timeout_ms)
                                                      / 1000.0)
      """;

  /**
   * The per-location verdicts an event of {@code service} written now carries (as the recorder
   * writes them), or null for a target probed from one place or without a fresh location.
   */
  static java.util.Map<String, String> verdicts(Connection connection, String service)
      throws SQLException {
    List<QuorumRule.Location> fresh = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(FRESH)) {
      statement.setString(1, service);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          fresh.add(
              new QuorumRule.Location(
                  rs.getString(1),
                  false,
                  true,
                  ProbeStatus.valueOf(rs.getString(2)),
                  rs.getString(3)));
        }
      }
    }
    return fresh.isEmpty() ? null : QuorumRule.verdicts(fresh);
  }

  private final DataSource dataSource;

  public LocationReads(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Every enabled target probed from several locations, by name. */
  public Map<String, Target> all() {
    return read(null);
  }

  /** The target {@code service}, if it is enabled and probed from several locations. */
  public Target of(String service) {
    return read(service).get(service);
  }

  /** Names of the targets whose monitoring is degraded. */
  public List<String> degraded() {
    return all().values().stream().filter(Target::degraded).map(Target::service).toList();
  }

  private Map<String, Target> read(String service) {
    Map<String, Integer> quorums = new LinkedHashMap<>();
    Map<String, List<Location>> locations = new LinkedHashMap<>();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(READ)) {
      statement.setString(1, service);
      statement.setString(2, service);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          String name = rs.getString("name");
          quorums.put(name, rs.getInt("quorum"));
          Timestamp recorded = rs.getTimestamp("recorded_at");
          String status = rs.getString("last_status");
          String state;
          if (recorded == null) {
            state = "unseen";
          } else if (!rs.getBoolean("fresh")) {
            state = "stale";
          } else if (rs.getBoolean("failing")) {
            state = "failing";
          } else {
            state = "DOWN".equals(status) ? "counting" : "up";
          }
          locations
              .computeIfAbsent(name, n -> new ArrayList<>())
              .add(
                  new Location(
                      rs.getString("location"),
                      state,
                      "DOWN".equals(status) ? rs.getString("last_error") : null,
                      recorded == null ? null : recorded.toInstant()));
        }
      }
    } catch (SQLException e) {
      throw new DatabaseException("reading locations", e);
    }
    Map<String, Target> targets = new LinkedHashMap<>();
    quorums.forEach(
        (name, quorum) -> targets.put(name, new Target(name, quorum, locations.get(name))));
    return targets;
  }
}
