package dev.vigil.notifier.delivery;

import dev.vigil.kit.db.Database;
import dev.vigil.notifier.channel.GroupChannel;
import dev.vigil.notifier.channel.GroupSettings;
import dev.vigil.notifier.channel.GroupState;
import dev.vigil.notifier.channel.RateLimit;
import dev.vigil.notifier.internal.ServiceLocks;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The groups of one grouped channel in {@code notifier_group} and {@code notifier_group_message},
 * shared by every instance that has the channel.
 *
 * <p>Claim (one transaction): lock the channel's open group {@code FOR UPDATE SKIP LOCKED} (or open
 * one when heads wait and none is open: it is due {@code wait} after the first of them arrived);
 * when it is due, its lease is free and the endpoint has a rate slot, take the message still
 * SENDING from a sender that did not record it, or else write a new message of the channel's due
 * heads of line (as many as the channel can name in one message, see {@code
 * GroupChannel.nameBudget}; a full message makes the next one due at once, at the channel's rate);
 * lease the message's receipts and the group with one random token. Only heads are carried, so a
 * service's RECOVERED is never in a message before (or with) the one carrying its FAILED.
 *
 * <p>Record (one transaction, only while the token holds): sent → the receipts DELIVERED (or
 * SKIPPED when the channel sends nothing), the services' next receipts promoted, the group's state
 * replaced and its next message due one {@code interval} on, the group closed when nobody is down;
 * retry → the message stays SENDING with the same events; dead → its receipts DEAD. A crash between
 * send and record leaves the message SENDING: after the lease it is sent once more, unchanged.
 */
final class GroupStore {
  /** The most transitions one message carries; more wait for the next message. */
  static final int MAX_EVENTS = 5_000;

  /**
   * What a claim took: one message of one group, with the receipts it carries; {@code more} when
   * due heads were left for the next message (the message was full), which is then due at once.
   */
  record GroupClaim(
      UUID groupId,
      int messageSeq,
      int ordinal,
      UUID token,
      GroupState state,
      List<Claim> events,
      boolean more) {}

  /** A send's result. */
  record Result(Kind kind, int status, String error, Duration delay) {
    enum Kind {
      SENT,
      /** The channel sends nothing for this message; its transitions are skipped by the channel. */
      NOT_SENT,
      RETRY,
      /** The endpoint's 429: its bucket waits out Retry-After, the attempt does not count. */
      THROTTLED,
      DEAD
    }
  }

  private static final String LOCK_OPEN =
      """
      select group_id, down::text, messages,
             next_at <= now() and lease_until <= clock_timestamp()
        from notifier_group where channel = ? and status = 'OPEN'
       for update skip locked
      """;

  private static final String OPEN =
      """
      insert into notifier_group (group_id, channel, next_at)
      select gen_random_uuid(), ?, min(received_at) + ? * interval '1 millisecond'
        from notifier_receipt
       where channel = ? and head and status = 'PENDING' and available_at <= now()
      having count(*) > 0
      on conflict (channel) where status = 'OPEN' do nothing
      """;

  private static final String SLOT_FREE =
      """
      select next_at <= clock_timestamp() and blocked_until <= clock_timestamp()
        from notifier_rate_limit where bucket = ? for update
      """;

  private static final String TAKE_SLOT =
      """
      update notifier_rate_limit
         set next_at = greatest(next_at, clock_timestamp()) + ? * interval '1 millisecond',
             updated_at = now()
       where bucket = ?
      """;

  private static final String SENDING =
      "select seq, event_ids from notifier_group_message where group_id = ? and status = 'SENDING'";

  private static final String RETURNING =
      """
      returning r.event_id, r.service, r.kind, r.payload, r.attempts, r.claim_token, r.received_at,
                r.channel, r.seq
      """;

  private static final String LEASE_CARRIED =
      """
      update notifier_receipt r
         set claim_token = ?, available_at = clock_timestamp() + ? * interval '1 millisecond',
             attempts = r.attempts + 1
       where r.channel = ? and r.event_id = any(?) and r.status = 'PENDING'
      """
          + RETURNING;

  // The due heads in arrival order, as many as the message can name (each name's length plus its
  // separator, summed in order, within the channel's budget), at most MAX_EVENTS.
  private static final String LEASE_HEADS =
      """
      with due as (
        select event_id, channel, seq, service from notifier_receipt
         where channel = ? and head and status = 'PENDING' and available_at <= now()
         order by seq
         limit ?
         for update skip locked),
      candidate as (
        select event_id, channel from (
          select event_id, channel,
                 sum(length(service) + ?) over (order by seq rows unbounded preceding) as chars
            from due) named
         where chars <= ?)
      update notifier_receipt r
         set claim_token = ?, available_at = clock_timestamp() + ? * interval '1 millisecond',
             attempts = r.attempts + 1
        from candidate c
       where r.event_id = c.event_id and r.channel = c.channel
      """
          + RETURNING
          + ", (select count(*) from due)";

  private static final String NEW_MESSAGE =
      """
      insert into notifier_group_message (group_id, seq, event_ids)
      select ?, coalesce(max(seq), 0) + 1, ? from notifier_group_message where group_id = ?
      returning seq
      """;

  private static final String LEASE_GROUP =
      """
      update notifier_group
         set claim_token = ?, lease_until = clock_timestamp() + ? * interval '1 millisecond'
       where group_id = ?
      """;

  private static final String HOLDS =
      "select 1 from notifier_group where group_id = ? and claim_token = ? for update";

  private static final String FINISH_RECEIPTS =
      """
      update notifier_receipt r
         set status = case when ? = 0 then 'SKIPPED' else 'DELIVERED' end,
             head = false, claim_token = null,
             delivered_at = case when ? = 0 then null else now() end,
             skipped_at = case when ? = 0 then now() end,
             skipped_by = case when ? = 0 then 'channel:' || r.channel end,
             last_status = nullif(?, 0), last_error = null
       where r.channel = ? and r.event_id = any(?) and r.claim_token = ? and r.status = 'PENDING'
      """;

  private static final String RETRY_RECEIPTS =
      """
      update notifier_receipt r
         set claim_token = null, available_at = now() + ? * interval '1 millisecond',
             last_status = ?, last_error = ?, attempts = r.attempts - ?
       where r.channel = ? and r.event_id = any(?) and r.claim_token = ? and r.status = 'PENDING'
      """;

  // As a single delivery: an undeliverable REMINDER is parked, anything else is dead and blocks
  // its service on this channel until an operator replays (it then joins a later message) or skips.
  private static final String DEAD_RECEIPTS =
      """
      update notifier_receipt r
         set status = case when r.kind = 'REMINDER' then 'SKIPPED' else 'DEAD' end,
             head = case when r.kind = 'REMINDER' then false else r.head end,
             skipped_at = case when r.kind = 'REMINDER' then now() end,
             skipped_by = case when r.kind = 'REMINDER' then 'parked: reminder undeliverable' end,
             dead_at = case when r.kind = 'REMINDER' then null else now() end,
             claim_token = null, available_at = now(), last_status = ?, last_error = ?
       where r.channel = ? and r.event_id = any(?) and r.claim_token = ? and r.status = 'PENDING'
      """;

  private static final String FINISH_MESSAGE =
      """
      update notifier_group_message
         set status = ?, sent_at = case when ? in ('SENT', 'NOT_SENT') then now() end,
             last_status = nullif(?, 0), last_error = ?,
             attempts = attempts - ?
       where group_id = ? and seq = ?
      """;

  private static final String SENT_GROUP =
      """
      update notifier_group
         set down = ?::jsonb, messages = messages + 1,
             next_at = now() + ? * interval '1 millisecond',
             claim_token = null, lease_until = '-infinity',
             status = case when ? then 'CLOSED' else 'OPEN' end,
             closed_at = case when ? then now() end
       where group_id = ?
      """;

  private static final String RELEASE_GROUP =
      """
      update notifier_group
         set next_at = now() + ? * interval '1 millisecond',
             claim_token = null, lease_until = '-infinity'
       where group_id = ?
      """;

  private static final String BLOCK =
      """
      update notifier_rate_limit
         set blocked_until = greatest(blocked_until, now() + ? * interval '1 millisecond'),
             updated_at = now()
       where bucket = ?
      """;

  private static final String CLOSE =
      "update notifier_group set status = 'CLOSED', closed_at = now() where group_id = ?";

  private final Database database;
  private final String channel;
  private final GroupSettings settings;
  private final RateLimit limit;
  private final int nameBudget;

  /**
   * @param limit the channel's endpoint rate (its bucket row is shared with every instance); null
   *     when the channel has none
   * @param nameBudget characters of names one message can list (see {@code
   *     GroupChannel.nameBudget}): a message carries no more transitions than it can name
   */
  GroupStore(
      Database database, String channel, GroupSettings settings, RateLimit limit, int nameBudget) {
    this.database = database;
    this.channel = channel;
    this.settings = settings;
    this.limit = limit;
    this.nameBudget = nameBudget;
  }

  String channel() {
    return channel;
  }

  GroupSettings settings() {
    return settings;
  }

  /** Whether a 429 of this channel blocks its endpoint (it has a bucket). */
  boolean throttles() {
    return limit != null;
  }

  /** The next message to send, if one is due (see the class comment). */
  Optional<GroupClaim> claim(Duration lease) {
    return database.inTransaction(
        "claiming a group message of " + channel,
        connection -> {
          UUID groupId;
          GroupState state;
          int sent;
          try (PreparedStatement statement = connection.prepareStatement(LOCK_OPEN)) {
            statement.setString(1, channel);
            try (ResultSet rows = statement.executeQuery()) {
              if (!rows.next()) {
                open(connection);
                return Optional.empty();
              }
              if (!rows.getBoolean(4)) {
                return Optional.empty(); // waiting (wait or interval) or being sent elsewhere
              }
              groupId = rows.getObject(1, UUID.class);
              state = GroupState.fromJson(rows.getString(2));
              sent = rows.getInt(3);
            }
          }
          if (!slotFree(connection)) {
            return Optional.empty();
          }
          UUID token = UUID.randomUUID();
          List<Claim> events = new ArrayList<>();
          int seq = carried(connection, groupId, token, lease, events);
          boolean more = false;
          if (events.isEmpty()) {
            long[] due = new long[1];
            events.addAll(leaseHeads(connection, token, lease, due));
            // full: the budget left due heads behind, or there may be more than MAX_EVENTS
            more = !events.isEmpty() && (due[0] > events.size() || due[0] >= MAX_EVENTS);
            if (events.isEmpty()) {
              if (state.down().isEmpty()) {
                update(connection, CLOSE, groupId);
              }
              return Optional.empty();
            }
            try (PreparedStatement statement = connection.prepareStatement(NEW_MESSAGE)) {
              statement.setObject(1, groupId);
              statement.setArray(
                  2,
                  connection.createArrayOf("uuid", events.stream().map(Claim::eventId).toArray()));
              statement.setObject(3, groupId);
              try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                seq = rows.getInt(1);
              }
            }
          }
          if (limit != null && !limit.interval().isZero()) {
            try (PreparedStatement statement = connection.prepareStatement(TAKE_SLOT)) {
              statement.setLong(1, limit.interval().toMillis());
              statement.setString(2, limit.bucket());
              statement.executeUpdate();
            }
          }
          try (PreparedStatement statement = connection.prepareStatement(LEASE_GROUP)) {
            statement.setObject(1, token);
            statement.setLong(2, lease.toMillis());
            statement.setObject(3, groupId);
            statement.executeUpdate();
          }
          try (PreparedStatement statement =
              connection.prepareStatement(
                  "update notifier_group_message set attempts = attempts + 1"
                      + " where group_id = ? and seq = ?")) {
            statement.setObject(1, groupId);
            statement.setInt(2, seq);
            statement.executeUpdate();
          }
          return Optional.of(new GroupClaim(groupId, seq, sent + 1, token, state, events, more));
        });
  }

  /** Opens a group when heads wait and none is open (its first message is due after wait). */
  private void open(Connection connection) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(OPEN)) {
      statement.setString(1, channel);
      statement.setLong(2, settings.waitFor().toMillis());
      statement.setString(3, channel);
      statement.executeUpdate();
    }
  }

  private boolean slotFree(Connection connection) throws SQLException {
    if (limit == null) {
      return true;
    }
    try (PreparedStatement statement = connection.prepareStatement(SLOT_FREE)) {
      statement.setString(1, limit.bucket());
      try (ResultSet rows = statement.executeQuery()) {
        return !rows.next() || rows.getBoolean(1);
      }
    }
  }

  /**
   * The message a previous sender did not record (same events, leased again to {@code token}); its
   * seq, or 0 when there is none.
   */
  private int carried(
      Connection connection, UUID groupId, UUID token, Duration lease, List<Claim> events)
      throws SQLException {
    int seq;
    java.sql.Array ids;
    try (PreparedStatement statement = connection.prepareStatement(SENDING)) {
      statement.setObject(1, groupId);
      try (ResultSet rows = statement.executeQuery()) {
        if (!rows.next()) {
          return 0;
        }
        seq = rows.getInt(1);
        ids = rows.getArray(2);
      }
    }
    try (PreparedStatement statement = connection.prepareStatement(LEASE_CARRIED)) {
      statement.setObject(1, token);
      statement.setLong(2, lease.toMillis());
      statement.setString(3, channel);
      statement.setArray(4, ids);
      events.addAll(read(statement));
    }
    if (events.isEmpty()) {
      // an operator skipped (or replayed) every event it carried: nothing left to repeat
      try (PreparedStatement statement =
          connection.prepareStatement(
              "update notifier_group_message set status = 'NOT_SENT',"
                  + " last_error = 'no carried event pending any more' where group_id = ? and seq = ?")) {
        statement.setObject(1, groupId);
        statement.setInt(2, seq);
        statement.executeUpdate();
      }
      return 0;
    }
    return seq;
  }

  /** Leases the due heads the message can name; {@code due[0]}: how many heads were due. */
  private List<Claim> leaseHeads(Connection connection, UUID token, Duration lease, long[] due)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(LEASE_HEADS)) {
      statement.setString(1, channel);
      statement.setInt(2, MAX_EVENTS);
      statement.setInt(3, GroupChannel.NAME_OVERHEAD);
      statement.setLong(4, nameBudget);
      statement.setObject(5, token);
      statement.setLong(6, lease.toMillis());
      return read(statement, due);
    }
  }

  /** Claims in arrival order (the receipts' seq). */
  private static List<Claim> read(PreparedStatement statement) throws SQLException {
    return read(statement, null);
  }

  /** As {@link #read(PreparedStatement)}; {@code extra[0]}, when given, is column 10. */
  private static List<Claim> read(PreparedStatement statement, long[] extra) throws SQLException {
    Map<Claim, Long> seqs = new HashMap<>();
    List<Claim> claims = new ArrayList<>();
    try (ResultSet rows = statement.executeQuery()) {
      while (rows.next()) {
        Claim claim =
            new Claim(
                rows.getObject(1, UUID.class),
                rows.getString(2),
                rows.getString(3),
                rows.getString(4),
                rows.getInt(5),
                rows.getObject(6, UUID.class),
                rows.getTimestamp(7).toInstant(),
                rows.getString(8));
        seqs.put(claim, rows.getLong(9));
        if (extra != null) {
          extra[0] = rows.getLong(10);
        }
        claims.add(claim);
      }
    }
    claims.sort(Comparator.comparing(seqs::get));
    return claims;
  }

  /**
   * Records {@code result} of {@code claim}'s message; {@code next} is the group's state once the
   * message is sent.
   *
   * @return false when the claim's token no longer holds (its lease ran out and another sender took
   *     the message): nothing is written
   */
  boolean record(GroupClaim claim, Result result, GroupState next) {
    return database.inTransaction(
        "recording group message " + claim.messageSeq() + " of " + channel,
        connection -> {
          try (PreparedStatement statement = connection.prepareStatement(HOLDS)) {
            statement.setObject(1, claim.groupId());
            statement.setObject(2, claim.token());
            try (ResultSet rows = statement.executeQuery()) {
              if (!rows.next()) {
                return false;
              }
            }
          }
          java.sql.Array ids =
              connection.createArrayOf(
                  "uuid", claim.events().stream().map(Claim::eventId).toArray());
          Set<String> services = new LinkedHashSet<>();
          claim.events().forEach(c -> services.add(c.service()));
          switch (result.kind()) {
            case SENT, NOT_SENT -> {
              ServiceLocks.lock(connection, services);
              int status = result.kind() == Result.Kind.SENT ? result.status() : 0;
              try (PreparedStatement statement = connection.prepareStatement(FINISH_RECEIPTS)) {
                for (int i = 1; i <= 5; i++) {
                  statement.setInt(i, status);
                }
                statement.setString(6, channel);
                statement.setArray(7, ids);
                statement.setObject(8, claim.token());
                statement.executeUpdate();
              }
              ServiceLocks.promoteHeads(connection, services);
              finishMessage(connection, claim, result, 0);
              boolean closed = next.down().isEmpty();
              try (PreparedStatement statement = connection.prepareStatement(SENT_GROUP)) {
                statement.setString(1, next.toJson());
                // a full message leaves due heads behind: the next one goes at the channel's rate
                statement.setLong(2, claim.more() ? 0 : settings.interval().toMillis());
                statement.setBoolean(3, closed);
                statement.setBoolean(4, closed);
                statement.setObject(5, claim.groupId());
                statement.executeUpdate();
              }
            }
            case RETRY, THROTTLED -> {
              int refund = result.kind() == Result.Kind.THROTTLED ? 1 : 0;
              try (PreparedStatement statement = connection.prepareStatement(RETRY_RECEIPTS)) {
                statement.setLong(1, result.delay().toMillis());
                statement.setInt(2, result.status());
                statement.setString(3, result.error());
                statement.setInt(4, refund);
                statement.setString(5, channel);
                statement.setArray(6, ids);
                statement.setObject(7, claim.token());
                statement.executeUpdate();
              }
              finishMessage(connection, claim, result, refund);
              release(connection, claim, result.delay());
              if (refund == 1 && limit != null) {
                try (PreparedStatement statement = connection.prepareStatement(BLOCK)) {
                  statement.setLong(1, result.delay().toMillis());
                  statement.setString(2, limit.bucket());
                  statement.executeUpdate();
                }
              }
            }
            case DEAD -> {
              ServiceLocks.lock(connection, services);
              try (PreparedStatement statement = connection.prepareStatement(DEAD_RECEIPTS)) {
                statement.setInt(1, result.status());
                statement.setString(2, result.error());
                statement.setString(3, channel);
                statement.setArray(4, ids);
                statement.setObject(5, claim.token());
                statement.executeUpdate();
              }
              ServiceLocks.promoteHeads(connection, services);
              finishMessage(connection, claim, result, 0);
              release(connection, claim, Duration.ZERO);
            }
          }
          return true;
        });
  }

  private static void finishMessage(
      Connection connection, GroupClaim claim, Result result, int refund) throws SQLException {
    String status =
        switch (result.kind()) {
          case SENT -> "SENT";
          case NOT_SENT -> "NOT_SENT";
          case RETRY, THROTTLED -> "SENDING";
          case DEAD -> "FAILED";
        };
    try (PreparedStatement statement = connection.prepareStatement(FINISH_MESSAGE)) {
      statement.setString(1, status);
      statement.setString(2, status);
      statement.setInt(3, result.status());
      statement.setString(4, result.error());
      statement.setInt(5, refund);
      statement.setObject(6, claim.groupId());
      statement.setInt(7, claim.messageSeq());
      statement.executeUpdate();
    }
  }

  private static void release(Connection connection, GroupClaim claim, Duration delay)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(RELEASE_GROUP)) {
      statement.setLong(1, delay.toMillis());
      statement.setObject(2, claim.groupId());
      statement.executeUpdate();
    }
  }

  private static void update(Connection connection, String sql, UUID id) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setObject(1, id);
      statement.executeUpdate();
    }
  }
}
