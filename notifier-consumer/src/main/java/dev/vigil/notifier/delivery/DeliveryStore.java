package dev.vigil.notifier.delivery;

import dev.vigil.kit.db.Database;
import dev.vigil.notifier.channel.RateLimit;
import dev.vigil.notifier.internal.ServiceLocks;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Claims and finishes deliveries of the channels this instance has.
 *
 * <p>Claim: one statement picks due heads of line ({@code head and status = 'PENDING' and
 * available_at <= now()}, an index scan), locks them {@code FOR UPDATE SKIP LOCKED} so concurrent
 * workers never wait on or share a row, and in the same statement sets a random token, pushes
 * {@code available_at} to the lease expiry and increments attempts. Only heads are claimable, so a
 * service never has two deliveries in flight and never overtakes an undelivered (or dead) event.
 *
 * <p>Finish: an outcome is written only where the row still carries the worker's token; a worker
 * whose lease ran out and whose receipt was claimed again is refused. Delivering a head promotes
 * the service's next receipt, under the service's advisory lock.
 */
final class DeliveryStore {
  /**
   * The lease runs from {@code clock_timestamp()}, the moment the row is claimed, not from {@code
   * now()} (the transaction's start): a chained claim runs after the wait for the service locks,
   * and a lease counted from before that wait could end while the request is still in flight, so
   * another worker would send the webhook a second time.
   *
   * <p>Claims due heads of line matching {@code filter} (a condition on {@code notifier_receipt},
   * possibly with parameters before the limit and the lease): a new token, the lease as {@code
   * available_at}, one more attempt, all in one statement.
   */
  private static String claimStatement(String filter) {
    return """
        with candidate as (
          select event_id, channel from notifier_receipt
           where %s head and status = 'PENDING' and available_at <= now()
           order by available_at
           limit ?
           for update skip locked)
        update notifier_receipt r
           set claim_token = gen_random_uuid(),
               available_at = clock_timestamp() + ? * interval '1 millisecond',
               attempts = r.attempts + 1
          from candidate c
         where r.event_id = c.event_id and r.channel = c.channel
        returning r.event_id, r.service, r.kind, r.payload, r.attempts, r.claim_token, r.received_at,
                  r.channel, r.traceparent
        """
        .formatted(filter);
  }

  /** Claims due heads of the channels given as a text array. */
  private static final String CLAIM = claimStatement("channel = any(?) and");

  private static final String DELIVERED =
      """
      update notifier_receipt r
         set status = case when u.status = 0 then 'SKIPPED' else 'DELIVERED' end,
             head = false, claim_token = null,
             delivered_at = case when u.status = 0 then null else now() end,
             skipped_at = case when u.status = 0 then now() end,
             skipped_by = case when u.status = 0 then 'channel:' || r.channel end,
             last_status = nullif(u.status, 0), last_error = null
        from unnest(?::uuid[], ?::text[], ?::uuid[], ?::int[]) as u(event_id, channel, token, status)
       where r.event_id = u.event_id and r.channel = u.channel and r.claim_token = u.token
         and r.status = 'PENDING'
      returning u.token, r.service
      """;

  /**
   * {@code refund} 1: the attempt does not count (the endpoint's 429, see {@link RateLimitStore}).
   */
  private static final String RETRY =
      """
      update notifier_receipt r
         set claim_token = null, available_at = now() + u.delay_ms * interval '1 millisecond',
             last_status = u.status, last_error = u.error, attempts = r.attempts - u.refund
        from unnest(?::uuid[], ?::text[], ?::uuid[], ?::bigint[], ?::int[], ?::text[], ?::int[])
             as u(event_id, channel, token, delay_ms, status, error, refund)
       where r.event_id = u.event_id and r.channel = u.channel and r.claim_token = u.token
         and r.status = 'PENDING'
      returning u.token
      """;

  private static final String DEAD =
      """
      update notifier_receipt r
         set status = 'DEAD', claim_token = null, dead_at = now(), available_at = now(),
             last_status = u.status, last_error = u.error
        from unnest(?::uuid[], ?::text[], ?::uuid[], ?::int[], ?::text[])
             as u(event_id, channel, token, status, error)
       where r.event_id = u.event_id and r.channel = u.channel and r.claim_token = u.token
         and r.status = 'PENDING'
      returning u.token
      """;

  // An undeliverable REMINDER is parked (SKIPPED, with why) rather than dead: it only repeats what
  // the FAILED said, and a dead head would hold back the service's RECOVERED on this channel.
  private static final String PARKED =
      """
      update notifier_receipt r
         set status = 'SKIPPED', head = false, claim_token = null, skipped_at = now(),
             skipped_by = 'parked: reminder undeliverable', last_status = nullif(u.status, 0),
             last_error = u.error
        from unnest(?::uuid[], ?::text[], ?::uuid[], ?::int[], ?::text[])
             as u(event_id, channel, token, status, error)
       where r.event_id = u.event_id and r.channel = u.channel and r.claim_token = u.token
         and r.status = 'PENDING'
      returning u.token, r.service
      """;

  /**
   * Claims the next heads of the services and channels given as text arrays (chained after a
   * delivery).
   */
  private static final String CLAIM_NEXT =
      claimStatement("service = any(?) and channel = any(?) and");

  /** What recording a set of results produced; {@code refused} holds claim tokens. */
  record Recorded(Set<UUID> refused, List<Claim> next) {}

  /** A result to record for one claim. */
  record Result(Claim claim, Kind kind, int status, String error, Duration delay) {
    enum Kind {
      DELIVERED,
      RETRY,
      /** The endpoint answered 429: retried after its Retry-After, the attempt not counted. */
      THROTTLED,
      DEAD,
      /** Given up without blocking the service: only for a REMINDER (see {@link #PARKED}). */
      PARKED
    }
  }

  private final Database database;
  private final RateLimitStore rateLimits;

  /** A store that claims deliveries of the signed webhook only. */
  DeliveryStore(Database database) {
    this(database, List.of("webhook"), Map.of());
  }

  /**
   * A store that claims only deliveries of {@code channels} (the channels this instance has): a
   * delivery for a channel it does not have is left for an instance that has it, with no attempt
   * counted, however long that takes. Channels in {@code limits} are claimed at their endpoint's
   * rate, shared with every instance, and not while the endpoint's 429 lasts.
   */
  DeliveryStore(Database database, Collection<String> channels, Map<String, RateLimit> limits) {
    this.database = database;
    this.rateLimits = new RateLimitStore(database, new Buckets(channels, limits));
  }

  /** Writes the row of every endpoint this store limits (see {@link RateLimitStore}). */
  void registerBuckets() {
    rateLimits.register();
  }

  /** New work: paced endpoints are asked for a slot at the next claim, not after their pause. */
  void nudge() {
    rateLimits.nudge();
  }

  /** Whether a 429 of {@code channel} blocks its endpoint (rather than counting as an attempt). */
  boolean throttles(String channel) {
    return rateLimits.throttles(channel);
  }

  /**
   * Claims up to {@code limit} due heads of line of this store's channels: freely for channels
   * without a rate, one per free slot for rate-limited endpoints.
   */
  List<Claim> claim(int limit, Duration lease) {
    List<Claim> claims =
        database.inTransaction(
            "claiming deliveries",
            connection -> {
              try (PreparedStatement statement = connection.prepareStatement(CLAIM)) {
                statement.setArray(
                    1, connection.createArrayOf("text", rateLimits.free(connection)));
                statement.setInt(2, limit);
                statement.setLong(3, lease.toMillis());
                return claims(statement);
              }
            });
    if (claims.size() < limit) {
      claims = new ArrayList<>(claims);
      claims.addAll(rateLimits.claimPaced(limit - claims.size(), lease));
    }
    return claims;
  }

  static List<Claim> claims(PreparedStatement statement) throws SQLException {
    List<Claim> claims = new ArrayList<>();
    try (ResultSet rows = statement.executeQuery()) {
      while (rows.next()) {
        claims.add(
            new Claim(
                rows.getObject(1, UUID.class),
                rows.getString(2),
                rows.getString(3),
                rows.getString(4),
                rows.getInt(5),
                rows.getObject(6, UUID.class),
                rows.getTimestamp(7).toInstant(),
                rows.getString(8),
                rows.getString(9)));
      }
    }
    return claims;
  }

  /**
   * Records results in one transaction.
   *
   * @return the claim tokens whose result was refused because the token no longer holds
   */
  Set<UUID> record(List<Result> results) {
    return record(results, 0, Duration.ZERO).refused();
  }

  /**
   * Records results in one transaction and, in the same transaction, claims up to {@code
   * chainLimit} of the next heads of the services just delivered, so a service's backlog flows
   * without waiting for the next general claim.
   */
  Recorded record(List<Result> results, int chainLimit, Duration lease) {
    return database.inTransaction(
        "recording " + results.size() + " delivery results",
        connection -> {
          Set<UUID> accepted = new HashSet<>();
          List<Claim> next = new ArrayList<>();
          List<Result> delivered = new ArrayList<>();
          List<Result> retry = new ArrayList<>();
          List<Result> throttled = new ArrayList<>();
          List<Result> dead = new ArrayList<>();
          List<Result> parked = new ArrayList<>();
          for (Result result : results) {
            switch (result.kind()) {
              case DELIVERED -> delivered.add(result);
              case RETRY -> retry.add(result);
              case THROTTLED -> {
                retry.add(result);
                throttled.add(result);
              }
              case DEAD -> dead.add(result);
              case PARKED -> parked.add(result);
            }
          }
          if (!delivered.isEmpty() || !parked.isEmpty()) {
            Set<String> services = new HashSet<>();
            delivered.forEach(r -> services.add(r.claim().service()));
            parked.forEach(r -> services.add(r.claim().service()));
            ServiceLocks.lock(connection, services);
            Set<String> advanced = new HashSet<>();
            if (!delivered.isEmpty()) {
              try (PreparedStatement statement = connection.prepareStatement(DELIVERED)) {
                keys(statement, connection, delivered);
                statement.setArray(4, ints(connection, delivered));
                advance(statement, accepted, advanced);
              }
            }
            if (!parked.isEmpty()) {
              try (PreparedStatement statement = connection.prepareStatement(PARKED)) {
                keys(statement, connection, parked);
                statement.setArray(4, ints(connection, parked));
                statement.setArray(5, errors(connection, parked));
                advance(statement, accepted, advanced);
              }
            }
            ServiceLocks.promoteHeads(connection, advanced);
            if (chainLimit > 0 && !advanced.isEmpty()) {
              try (PreparedStatement statement = connection.prepareStatement(CLAIM_NEXT)) {
                statement.setArray(1, connection.createArrayOf("text", advanced.toArray()));
                statement.setArray(
                    2, connection.createArrayOf("text", rateLimits.free(connection)));
                statement.setInt(3, chainLimit);
                statement.setLong(4, lease.toMillis());
                next.addAll(claims(statement));
              }
            }
          }
          if (!retry.isEmpty()) {
            try (PreparedStatement statement = connection.prepareStatement(RETRY)) {
              keys(statement, connection, retry);
              statement.setArray(
                  4,
                  connection.createArrayOf(
                      "int8", retry.stream().map(r -> r.delay().toMillis()).toArray()));
              statement.setArray(5, ints(connection, retry));
              statement.setArray(6, errors(connection, retry));
              statement.setArray(
                  7,
                  connection.createArrayOf(
                      "int4",
                      retry.stream()
                          .map(r -> r.kind() == Result.Kind.THROTTLED ? 1 : 0)
                          .toArray()));
              collect(statement, accepted);
            }
          }
          if (!throttled.isEmpty()) {
            rateLimits.block(connection, throttled);
          }
          if (!dead.isEmpty()) {
            try (PreparedStatement statement = connection.prepareStatement(DEAD)) {
              keys(statement, connection, dead);
              statement.setArray(4, ints(connection, dead));
              statement.setArray(5, errors(connection, dead));
              collect(statement, accepted);
            }
          }
          Set<UUID> refused = new HashSet<>();
          for (Result result : results) {
            if (!accepted.contains(result.claim().token())) {
              refused.add(result.claim().token());
            }
          }
          return new Recorded(refused, next);
        });
  }

  /** Runs a statement returning (token, service) of the rows it finished. */
  private static void advance(PreparedStatement statement, Set<UUID> accepted, Set<String> advanced)
      throws SQLException {
    try (ResultSet rows = statement.executeQuery()) {
      while (rows.next()) {
        accepted.add(rows.getObject(1, UUID.class));
        advanced.add(rows.getString(2));
      }
    }
  }

  /** Pending and dead counts and the oldest pending receipt's arrival. */
  record Backlog(long pending, long dead, Timestamp oldestPending) {}

  Backlog backlog() {
    return database.inTransaction(
        "reading backlog",
        connection -> {
          try (PreparedStatement statement =
                  connection.prepareStatement(
                      """
                      select count(*) filter (where status = 'PENDING'),
                             count(*) filter (where status = 'DEAD'),
                             min(received_at) filter (where status = 'PENDING')
                        from notifier_receipt where status in ('PENDING', 'DEAD')
                      """);
              ResultSet rows = statement.executeQuery()) {
            rows.next();
            return new Backlog(rows.getLong(1), rows.getLong(2), rows.getTimestamp(3));
          }
        });
  }

  private static void collect(PreparedStatement statement, Set<UUID> accepted) throws SQLException {
    try (ResultSet rows = statement.executeQuery()) {
      while (rows.next()) {
        accepted.add(rows.getObject(1, UUID.class));
      }
    }
  }

  /**
   * Sets parameters 1 to 3 to the results' primary keys (event id, channel) and claim tokens. Both
   * key columns are matched, so each result is one unique index lookup whatever the planner's
   * statistics say: matched on the event id alone, a table that had grown since it was last
   * analysed was read through a bitmap of every unfinished receipt, 3.7 ms per result.
   */
  private static void keys(PreparedStatement statement, Connection connection, List<Result> results)
      throws SQLException {
    statement.setArray(1, uuids(connection, results, r -> r.claim().eventId()));
    statement.setArray(
        2,
        connection.createArrayOf("text", results.stream().map(r -> r.claim().channel()).toArray()));
    statement.setArray(3, uuids(connection, results, r -> r.claim().token()));
  }

  private static java.sql.Array uuids(
      Connection connection, List<Result> results, java.util.function.Function<Result, UUID> f)
      throws SQLException {
    return connection.createArrayOf("uuid", results.stream().map(f).toArray());
  }

  private static java.sql.Array ints(Connection connection, List<Result> results)
      throws SQLException {
    return connection.createArrayOf("int4", results.stream().map(Result::status).toArray());
  }

  private static java.sql.Array errors(Connection connection, List<Result> results)
      throws SQLException {
    return connection.createArrayOf("text", results.stream().map(Result::error).toArray());
  }
}
