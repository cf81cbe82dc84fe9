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
 * whole intervals from the previous due time, so the schedule does not drift with probe latency.
 */
final class Leases {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Leases.class);

  /**
   * A claimed target: what to probe, the token needed to release it, and the {@code result_order}
   * number the claim took (the result's place in the service's order).
   */
  record Claim(TargetSpec target, UUID token, long leaseEndsNanos, long order) {}

  private static final String CLAIM =
      ScheduleClaims.sql(
          "t.enabled and t.kind in ('http', 'tcp', 'dns') and s.next_due_at <= now()",
          """
          make_interval(secs => greatest(?,
                   (t.timeout_ms + t.connect_timeout_ms) / 1000.0 + ?))""",
          """
          t.*, (extract(epoch from (s.lease_until - now())) * 1000)::bigint as lease_ms,
                    nextval('result_order') as claim_order""");

  private static final String RELEASE =
      """
      update probe_schedule
         set lease_owner = null, lease_token = null, lease_until = null, unreadable = null,
             next_due_at = next_due_at + make_interval(secs => ? / 1000.0)
                 * greatest(1, floor(extract(epoch from (now() - next_due_at)) * 1000 / ?) + 1)
       where target = ? and lease_token = ?
      """;

  private final String owner;
  private final Duration lease;
  private final Duration margin;

  Leases(String owner, Duration lease, Duration margin) {
    this.owner = owner;
    this.lease = lease;
    this.margin = margin;
  }

  /** Claims up to {@code limit} due targets for this instance (auto-commit: one statement). */
  List<Claim> claim(Connection connection, int limit) throws SQLException {
    UUID token = UUID.randomUUID();
    // Measured before the statement, so the local view of the lease end is never later than the
    // database's.
    long claimedAt = System.nanoTime();
    List<Claim> claims = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(CLAIM)) {
      statement.setInt(1, limit);
      statement.setString(2, owner);
      statement.setObject(3, token);
      statement.setDouble(4, lease.toMillis() / 1000.0);
      statement.setDouble(5, margin.toMillis() / 1000.0);
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
                  target, token, claimedAt + leaseMillis * 1_000_000, rs.getLong("claim_order")));
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
    try (PreparedStatement statement = connection.prepareStatement(RELEASE)) {
      long interval = claim.target().interval().toMillis();
      statement.setLong(1, interval);
      statement.setLong(2, interval);
      statement.setString(3, claim.target().name());
      statement.setObject(4, claim.token());
      return statement.executeUpdate() == 1;
    }
  }

  /** Hands a claim back unprobed, keeping its due time, so any instance can take it at once. */
  void abandon(Connection connection, Claim claim) throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            "update probe_schedule set lease_owner = null, lease_token = null, lease_until = null"
                + " where target = ? and lease_token = ?")) {
      statement.setString(1, claim.target().name());
      statement.setObject(2, claim.token());
      statement.executeUpdate();
    }
  }

  /** Gives up every lease of this instance so others can probe those targets right away. */
  int releaseAll(Connection connection) throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            "update probe_schedule set lease_owner = null, lease_token = null, lease_until = null"
                + " where lease_owner = ?")) {
      statement.setString(1, owner);
      return statement.executeUpdate();
    }
  }
}
