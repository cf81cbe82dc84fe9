package dev.vigil.monitor.probe;

import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The {@code probe_schedule} leases. A claim takes due, unleased (or lease-expired) rows with
 * {@code FOR UPDATE SKIP LOCKED}, so concurrent instances never claim the same row; the lease lasts
 * at least as long as the longest possible probe, so a target is never probed twice at once while
 * its holder is alive. A release only succeeds with the claim's token, and moves the due time on by
 * whole steps from the previous due time, so the schedule does not drift with probe latency. The
 * step is the target's interval, or its retryInterval while failures count towards an incident
 * (none open) or successes towards its recovery (one open).
 *
 * <p>A target that lists locations is claimed per (target, location) from {@code
 * location_schedule}, only by instances of that location, under the same rules; its {@code
 * probe_schedule} row is not claimed.
 */
final class Leases {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Leases.class);

  /**
   * A claimed target: what to probe, the token needed to release it, and the {@code result_order}
   * number the claim took (the result's place in the service's order).
   */
  record Claim(TargetSpec target, UUID token, long leaseEndsNanos, long order, String location) {}

  private static final String LEASE_UNTIL =
      """
      make_interval(secs => greatest(?,
               (t.timeout_ms + t.connect_timeout_ms) / 1000.0 + ?))""";
  private static final String RETURNING =
      """
      t.*, (extract(epoch from (s.lease_until - now())) * 1000)::bigint as lease_ms,
                nextval('result_order') as claim_order""";

  private static final String LOCATION_CLAIM =
      ScheduleClaims.sql(
          "location_schedule",
          "s.target = due.target and s.location = due.location",
          """
          s.location = ? and t.enabled and t.kind in ('http', 'tcp', 'dns')
             and s.next_due_at <= now() and s.location = any(t.locations)""",
          LEASE_UNTIL,
          RETURNING);

  // The step to the next due time: the retry interval while counting (see the class comment), from
  // the counters this same transaction just recorded; for a location, that location's counters.
  private static final String STEP =
      """
      with f as (
          select case when t.retry_interval_ms is not null
                       and ((a.open_incident_id is null and c.failures > 0)
                            or (a.open_incident_id is not null and c.successes > 0))
                      then t.retry_interval_ms else t.interval_ms end as step_ms
            from targets t
            join alert_state a on a.service = t.name
            cross join lateral (
                select coalesce(l.consecutive_failures, a.consecutive_failures) as failures,
                       coalesce(l.consecutive_successes, a.consecutive_successes) as successes
                  from (select 1) one
                  left join location_state l on l.service = t.name and l.location = ?) c
           where t.name = ?
      )
      """;

  private static final String LOCATION_RELEASE =
      STEP
          + """
          update location_schedule s
             set lease_owner = null, lease_token = null, lease_until = null,
                 next_due_at = s.next_due_at + make_interval(secs => f.step_ms / 1000.0)
                     * greatest(1, floor(extract(epoch from (now() - s.next_due_at)) * 1000
                                         / f.step_ms) + 1)
            from f
           where s.target = ? and s.location = ? and s.lease_token = ?
          """;

  private static final String CLAIM =
      ScheduleClaims.sql(
          """
          t.enabled and t.kind in ('http', 'tcp', 'dns') and s.next_due_at <= now()
             and t.locations is null""",
          LEASE_UNTIL,
          RETURNING);

  private static final String RELEASE =
      STEP
          + """
          update probe_schedule s
             set lease_owner = null, lease_token = null, lease_until = null, unreadable = null,
                 next_due_at = s.next_due_at + make_interval(secs => f.step_ms / 1000.0)
                     * greatest(1, floor(extract(epoch from (now() - s.next_due_at)) * 1000
                                         / f.step_ms) + 1)
            from f
           where s.target = ? and s.lease_token = ?
          """;

  private final String owner;
  private final String location;
  private final Duration lease;
  private final Duration margin;

  Leases(String owner, String location, Duration lease, Duration margin) {
    this.owner = owner;
    this.location = location;
    this.lease = lease;
    this.margin = margin;
  }

  /**
   * Claims up to {@code limit} due targets for this instance (auto-commit: one statement for the
   * targets probed from one place, one more for this location's pairs if there is room left).
   */
  List<Claim> claim(Connection connection, int limit) throws SQLException {
    List<Claim> claims = claimFrom(connection, CLAIM, null, limit);
    if (claims.size() < limit) {
      claims.addAll(claimFrom(connection, LOCATION_CLAIM, location, limit - claims.size()));
    }
    return claims;
  }

  private List<Claim> claimFrom(Connection connection, String sql, String at, int limit)
      throws SQLException {
    UUID token = UUID.randomUUID();
    // Measured before the statement, so the local view of the lease end is never later than the
    // database's.
    long claimedAt = System.nanoTime();
    List<Claim> claims = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      int p = 1;
      if (at != null) {
        statement.setString(p++, at);
      }
      statement.setInt(p++, limit);
      statement.setString(p++, owner);
      statement.setObject(p++, token);
      statement.setDouble(p++, lease.toMillis() / 1000.0);
      statement.setDouble(p, margin.toMillis() / 1000.0);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          long leaseMillis = rs.getLong("lease_ms");
          TargetSpec target;
          try {
            target = TargetStore.fromRow(rs);
          } catch (RuntimeException e) {
            // A row no longer readable (e.g. a rule tightened since it was stored) must not stop
            // the others of the batch: its lease expires and it is tried again then.
            LOG.warn(
                "claimed target unreadable target={} error={}", rs.getString("name"), e.toString());
            markUnreadable(connection, rs.getString("name"), e);
            continue;
          }
          claims.add(
              new Claim(
                  target,
                  token,
                  claimedAt + leaseMillis * 1_000_000,
                  rs.getLong("claim_order"),
                  at));
        }
      }
    }
    return claims;
  }

  private static final String UNREADABLE =
      "update probe_schedule set unreadable = ? where target = ?";

  /** Records why {@code target} cannot be read, for /health and /api/services. */
  private static void markUnreadable(Connection connection, String target, RuntimeException e)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(UNREADABLE)) {
      String reason = e.getMessage() == null ? e.toString() : e.getMessage();
      statement.setString(
          1, dev.vigil.kit.SafeText.text(reason, dev.vigil.kit.SafeText.MAX_REASON));
      statement.setString(2, target);
      statement.executeUpdate();
    }
  }

  /**
   * Releases a claim and schedules the next probe; a no-op if the lease was lost meanwhile.
   *
   * @return whether this instance still held the lease
   */
  boolean release(Connection connection, Claim claim) throws SQLException {
    boolean located = claim.location() != null;
    try (PreparedStatement statement =
        connection.prepareStatement(located ? LOCATION_RELEASE : RELEASE)) {
      statement.setString(1, claim.location());
      statement.setString(2, claim.target().name());
      statement.setString(3, claim.target().name());
      if (located) {
        statement.setString(4, claim.location());
        statement.setObject(5, claim.token());
      } else {
        statement.setObject(4, claim.token());
      }
      return statement.executeUpdate() == 1;
    }
  }

  /** Hands a claim back unprobed, keeping its due time, so any instance can take it at once. */
  void abandon(Connection connection, Claim claim) throws SQLException {
    String table = claim.location() != null ? "location_schedule" : "probe_schedule";
    try (PreparedStatement statement =
        connection.prepareStatement(
            "update "
                + table
                + " set lease_owner = null, lease_token = null, lease_until = null"
                + " where target = ? and lease_token = ?")) {
      statement.setString(1, claim.target().name());
      statement.setObject(2, claim.token());
      statement.executeUpdate();
    }
  }

  /** Gives up every lease of this instance so others can probe those targets right away. */
  int releaseAll(Connection connection) throws SQLException {
    int released = 0;
    for (String table : List.of("probe_schedule", "location_schedule")) {
      try (PreparedStatement statement =
          connection.prepareStatement(
              "update "
                  + table
                  + " set lease_owner = null, lease_token = null, lease_until = null"
                  + " where lease_owner = ?")) {
        statement.setString(1, owner);
        released += statement.executeUpdate();
      }
    }
    return released;
  }
}
