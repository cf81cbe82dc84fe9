package dev.vigil.notifier.delivery;

import dev.vigil.kit.db.Database;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The endpoints' rows of {@code notifier_rate_limit}, shared by every instance: claims one per free
 * slot for paced endpoints, and keeps endpoints that answered 429 out of every claim until their
 * {@code Retry-After} has passed. Times are the database's.
 */
final class RateLimitStore {
  /**
   * Claims one due head of a rate-limited endpoint's channels, and only if the endpoint's next slot
   * has come and no 429 blocks it; the same statement moves the slot one interval on (database
   * clock), so every instance together sends at most the endpoint's rate. Without a due head the
   * slot is left as it was.
   */
  private static final String CLAIM_SLOT =
      """
      with candidate as (
        select event_id, channel from notifier_receipt
         where channel = any(?) and head and status = 'PENDING' and available_at <= now()
         order by available_at
         limit 1
         for update skip locked),
      slot as (
        update notifier_rate_limit
           set next_at = greatest(next_at, clock_timestamp()) + ? * interval '1 millisecond',
               updated_at = now()
         where bucket = ? and next_at <= clock_timestamp() and blocked_until <= clock_timestamp()
           and exists (select 1 from candidate)
        returning bucket)
      update notifier_receipt r
         set claim_token = gen_random_uuid(),
             available_at = clock_timestamp() + ? * interval '1 millisecond',
             attempts = r.attempts + 1
        from candidate c, slot
       where r.event_id = c.event_id and r.channel = c.channel
      returning r.event_id, r.service, r.kind, r.payload, r.attempts, r.claim_token, r.received_at,
                r.channel, r.traceparent
      """;

  /** After a 429: nothing more is claimed for the endpoint until its Retry-After has passed. */
  private static final String BLOCK =
      """
      update notifier_rate_limit b
         set blocked_until = greatest(b.blocked_until, now() + u.delay_ms * interval '1 millisecond'),
             updated_at = now()
        from unnest(?::text[], ?::bigint[]) as u(bucket, delay_ms)
       where b.bucket = u.bucket
      """;

  private static final String BLOCKED =
      "select bucket from notifier_rate_limit where bucket = any(?) and blocked_until > now()";

  private static final String REGISTER =
      """
      insert into notifier_rate_limit (bucket, interval_ms) values (?, ?)
      on conflict (bucket) do update set interval_ms = excluded.interval_ms, updated_at = now()
      """;

  private final Database database;
  private final Buckets buckets;

  RateLimitStore(Database database, Buckets buckets) {
    this.database = database;
    this.buckets = buckets;
  }

  /** Writes the row of every endpoint this store limits (its interval as configured here). */
  void register() {
    if (buckets.intervals().isEmpty()) {
      return;
    }
    database.inTransaction(
        "registering rate limits",
        connection -> {
          try (PreparedStatement statement = connection.prepareStatement(REGISTER)) {
            for (Map.Entry<String, Duration> bucket : buckets.intervals().entrySet()) {
              statement.setString(1, bucket.getKey());
              statement.setLong(2, bucket.getValue().toMillis());
              statement.addBatch();
            }
            return statement.executeBatch().length;
          }
        });
  }

  /** New receipts or a replay: paced endpoints are asked for a slot at the next claim. */
  void nudge() {
    buckets.nudge();
  }

  /** Whether a 429 of {@code channel} blocks its endpoint. */
  boolean throttles(String channel) {
    return buckets.bucketOf(channel) != null;
  }

  /** Up to {@code limit} claims, at most one per paced endpoint whose slot has come. */
  List<Claim> claimPaced(int limit, Duration lease) {
    List<Claim> claims = new ArrayList<>();
    for (String bucket : buckets.paced()) {
      if (claims.size() >= limit) {
        break;
      }
      if (!buckets.due(bucket)) {
        continue;
      }
      List<Claim> slot = claimSlot(bucket, lease);
      if (slot.isEmpty()) {
        buckets.missed(bucket);
      }
      claims.addAll(slot);
    }
    return claims;
  }

  private List<Claim> claimSlot(String bucket, Duration lease) {
    return database.inTransaction(
        "claiming a rate-limited delivery",
        connection -> {
          try (PreparedStatement statement = connection.prepareStatement(CLAIM_SLOT)) {
            statement.setArray(
                1, connection.createArrayOf("text", buckets.channelsOf(bucket).toArray()));
            statement.setLong(2, buckets.intervals().get(bucket).toMillis());
            statement.setString(3, bucket);
            statement.setLong(4, lease.toMillis());
            return DeliveryStore.claims(statement);
          }
        });
  }

  /**
   * The channels claimed without a slot: those without a rate, less those whose endpoint a 429
   * blocks now (read in the claiming transaction).
   */
  Object[] free(Connection connection) throws SQLException {
    if (buckets.unpaced().isEmpty()) {
      return buckets.unlimited().toArray();
    }
    Set<String> blocked = new HashSet<>();
    try (PreparedStatement statement = connection.prepareStatement(BLOCKED)) {
      statement.setArray(1, connection.createArrayOf("text", buckets.unpaced().toArray()));
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          blocked.add(rows.getString(1));
        }
      }
    }
    return buckets.free(blocked).toArray();
  }

  /**
   * Blocks the endpoints of {@code throttled} results for their delays (in the caller's
   * transaction).
   */
  void block(Connection connection, List<DeliveryStore.Result> throttled) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(BLOCK)) {
      statement.setArray(
          1,
          connection.createArrayOf(
              "text",
              throttled.stream().map(r -> buckets.bucketOf(r.claim().channel())).toArray()));
      statement.setArray(
          2,
          connection.createArrayOf(
              "int8", throttled.stream().map(r -> r.delay().toMillis()).toArray()));
      statement.executeUpdate();
    }
  }
}
