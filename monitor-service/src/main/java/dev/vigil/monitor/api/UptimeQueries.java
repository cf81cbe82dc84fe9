package dev.vigil.monitor.api;

import dev.vigil.kit.db.DatabaseException;
import dev.vigil.monitor.alert.UnknownServiceException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Uptime per step of a range for one service, read in one read-only repeatable-read transaction
 * (the range's default end is the database's {@code now()}): the UP, DOWN and maintenance counts of
 * the hourly or daily rollup buckets that start in each step, and the service's incidents that
 * overlap it. Everything the status page counts as uptime comes from the same buckets.
 */
final class UptimeQueries {
  private static final String SERVICE = "select 1 from targets where name = ?";

  private static final String HOURS =
      """
      select hour as bucket, up_count, down_count, maintenance_count
        from status_hourly
       where service = ? and hour >= ? and hour < ?
       order by hour
      """;

  private static final String DAYS =
      """
      select (day::timestamp at time zone 'UTC') as bucket, up_count, down_count,
             maintenance_count
        from uptime_daily
       where service = ? and day >= (?::timestamptz at time zone 'UTC')::date
         and day < (?::timestamptz at time zone 'UTC')::date
       order by day
      """;

  /** Most incidents one report lists; a service flapping for a year has more. */
  static final int MAX_INCIDENTS = 5_000;

  private static final String INCIDENTS =
      """
      select id, opened_at, closed_at
        from incidents
       where service = ? and opened_at < ? and (closed_at is null or closed_at > ?)
       order by opened_at
       limit ?
      """;

  /** One incident of the range; open when {@code closedAt} is null. */
  record Incident(String id, Instant openedAt, Instant closedAt) {}

  /** One step: its checks by kind and the incidents overlapping it. */
  record Step(
      Instant from, Instant to, long up, long down, long maintenance, List<Incident> incidents) {
    Step {
      incidents = List.copyOf(incidents);
    }

    /** UP share of the checks that were not in maintenance, in percent; null without any. */
    Double uptimePercent() {
      long counted = up + down;
      // Floored at four decimals, as the status page floors at two: never shows more than attained.
      return counted == 0 ? null : Math.floor(up * 1_000_000.0 / counted) / 10_000.0;
    }

    /** The step's length times the share of its checks that were DOWN. */
    long downtimeSeconds() {
      long checks = up + down + maintenance;
      return checks == 0 ? 0 : Duration.between(from, to).toSeconds() * down / checks;
    }

    /** How long incidents were open within the step. */
    long incidentSeconds(Instant now) {
      long seconds = 0;
      for (Incident incident : incidents) {
        Instant start = incident.openedAt().isAfter(from) ? incident.openedAt() : from;
        Instant closed = incident.closedAt() == null ? now : incident.closedAt();
        Instant end = closed.isBefore(to) ? closed : to;
        seconds += Math.max(0, Duration.between(start, end).toSeconds());
      }
      return seconds;
    }
  }

  /** What one request answers. */
  record Report(
      String service,
      Instant now,
      UptimeRequest request,
      List<Step> steps,
      Step total,
      boolean incidentsCut) {}

  private final DataSource dataSource;

  UptimeQueries(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * The report of {@code service} for the raw query string.
   *
   * @throws ApiException a 400 for a bad parameter
   * @throws UnknownServiceException when there is no such target
   */
  Report read(String service, String rawQuery) {
    try (Connection connection = dataSource.getConnection()) {
      connection.setReadOnly(true);
      connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      connection.setAutoCommit(false);
      try {
        Report report = read(connection, service, rawQuery);
        connection.commit();
        return report;
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new DatabaseException("reading the uptime of " + service, e);
    }
  }

  private static Report read(Connection connection, String service, String rawQuery)
      throws SQLException {
    Instant now;
    try (PreparedStatement statement = connection.prepareStatement("select now()");
        ResultSet rs = statement.executeQuery()) {
      rs.next();
      now = rs.getTimestamp(1).toInstant();
    }
    UptimeRequest request = UptimeRequest.parse(rawQuery, now);
    try (PreparedStatement statement = connection.prepareStatement(SERVICE)) {
      statement.setString(1, service);
      try (ResultSet rs = statement.executeQuery()) {
        if (!rs.next()) {
          throw new UnknownServiceException(service);
        }
      }
    }
    int count = (int) request.steps();
    long[][] counts = new long[count][3];
    String buckets = request.resolution() == UptimeRequest.Resolution.HOUR ? HOURS : DAYS;
    try (PreparedStatement statement = connection.prepareStatement(buckets)) {
      statement.setString(1, service);
      statement.setObject(2, utc(request.from()));
      statement.setObject(3, utc(request.to()));
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          Instant bucket = rs.getTimestamp(1).toInstant();
          int index = index(request, bucket);
          counts[index][0] += rs.getLong(2);
          counts[index][1] += rs.getLong(3);
          counts[index][2] += rs.getLong(4);
        }
      }
    }
    List<Incident> incidents = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(INCIDENTS)) {
      statement.setString(1, service);
      statement.setObject(2, utc(request.to()));
      statement.setObject(3, utc(request.from()));
      statement.setInt(4, MAX_INCIDENTS + 1);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          Timestamp closed = rs.getTimestamp(3);
          incidents.add(
              new Incident(
                  rs.getString(1),
                  rs.getTimestamp(2).toInstant(),
                  closed == null ? null : closed.toInstant()));
        }
      }
    }
    boolean cut = incidents.size() > MAX_INCIDENTS;
    if (cut) {
      incidents = incidents.subList(0, MAX_INCIDENTS);
    }
    return report(service, now, request, counts, incidents, cut);
  }

  private static Report report(
      String service,
      Instant now,
      UptimeRequest request,
      long[][] counts,
      List<Incident> incidents,
      boolean cut) {
    int count = counts.length;
    List<List<Incident>> byStep = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      byStep.add(new ArrayList<>());
    }
    // One service has one incident open at a time, so this adds about steps + incidents entries.
    for (Incident incident : incidents) {
      int first =
          incident.openedAt().isAfter(request.from()) ? index(request, incident.openedAt()) : 0;
      Instant end = incident.closedAt() == null ? request.to() : incident.closedAt();
      int last = end.isBefore(request.to()) ? index(request, end.minusNanos(1)) : count - 1;
      for (int i = Math.max(0, first); i <= Math.min(last, count - 1); i++) {
        byStep.get(i).add(incident);
      }
    }
    List<Step> steps = new ArrayList<>(count);
    long up = 0;
    long down = 0;
    long maintenance = 0;
    for (int i = 0; i < count; i++) {
      Instant stepFrom = request.from().plus(request.step().multipliedBy(i));
      Instant stepTo = stepFrom.plus(request.step());
      steps.add(
          new Step(
              stepFrom,
              stepTo.isAfter(request.to()) ? request.to() : stepTo,
              counts[i][0],
              counts[i][1],
              counts[i][2],
              byStep.get(i)));
      up += counts[i][0];
      down += counts[i][1];
      maintenance += counts[i][2];
    }
    Step total = new Step(request.from(), request.to(), up, down, maintenance, incidents);
    return new Report(service, now, request, steps, total, cut);
  }

  private static int index(UptimeRequest request, Instant at) {
    long seconds = Duration.between(request.from(), at).toSeconds();
    return (int) Math.max(0, seconds / request.step().toSeconds());
  }

  private static OffsetDateTime utc(Instant instant) {
    return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
  }
}
