package dev.vigil.notifier.instances;

import dev.vigil.kit.db.Database;
import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * The heartbeat rows of {@code notifier_instance} and the per-channel backlog read beside them. All
 * times are the database's: an instance is running while its last heartbeat is younger than the
 * liveness window and it has not stopped.
 */
final class InstanceStore {
  private static final String BEAT =
      """
      insert into notifier_instance (instance_id, channels, routes)
      values (?, ?, ?::jsonb)
      on conflict (instance_id) do update
         set channels = excluded.channels, routes = excluded.routes, seen_at = now(),
             stopped_at = null
      """;

  private static final String STOPPED =
      "update notifier_instance set seen_at = now(), stopped_at = now() where instance_id = ?";

  /** Rows no longer running and older than the route memory are of no use to anyone. */
  private static final String PRUNE =
      """
      delete from notifier_instance
       where seen_at < now() - ? * interval '1 millisecond'
         and seen_at < now() - ? * interval '1 millisecond'
      """;

  private static final String PEERS =
      """
      select instance_id, channels, routes::text,
             stopped_at is null and seen_at > now() - ? * interval '1 millisecond' as running,
             seen_at
        from notifier_instance
       where (stopped_at is null and seen_at > now() - ? * interval '1 millisecond')
          or seen_at > now() - ? * interval '1 millisecond'
       order by started_at, instance_id
      """;

  /** Unfinished deliveries per channel, with the oldest pending one's arrival. */
  private static final String BACKLOG =
      """
      select channel,
             count(*) filter (where status = 'PENDING') as pending,
             count(*) filter (where status = 'DEAD') as dead,
             min(received_at) filter (where status = 'PENDING') as oldest_pending,
             extract(epoch from now() - min(received_at) filter (where status = 'PENDING'))
        from notifier_receipt where status in ('PENDING', 'DEAD')
       group by channel order by channel
      """;

  /**
   * Open groups (one per channel at most), with the pending transitions of their channel that wait
   * for the next message; {@code ?} null for every channel.
   */
  private static final String GROUPS =
      """
      select g.group_id, g.channel, g.opened_at, g.messages, jsonb_array_length(g.down), g.next_at,
             greatest(0, extract(epoch from g.next_at - now())),
             (select count(*) from notifier_receipt r
               where r.channel = g.channel and r.status = 'PENDING'
                 and r.event_id <> all(coalesce(
                       (select m.event_ids from notifier_group_message m
                         where m.group_id = g.group_id and m.status = 'SENDING'), '{}')))
        from notifier_group g
       where g.status = 'OPEN' and (?::text is null or g.channel = ?::text)
       order by g.channel
      """;

  private static final String BUCKETS =
      """
      select bucket, next_at > clock_timestamp(), blocked_until > now(),
             greatest(0, extract(epoch from greatest(next_at, blocked_until) - clock_timestamp()))
        from notifier_rate_limit where bucket = any(?)
      """;

  /**
   * A rate-limited endpoint as read: {@code paced} while its next slot lies ahead, {@code blocked}
   * while a 429's Retry-After lasts; {@code forSeconds} until both have passed.
   */
  record Bucket(String bucket, boolean paced, boolean blocked, double forSeconds) {}

  /** One instance's row as read. */
  record Peer(
      String instanceId, List<String> channels, String routesJson, boolean running, Instant seen) {}

  /** One channel's unfinished deliveries. */
  record Backlog(
      String channel, long pending, long dead, Instant oldestPending, double oldestAgeSeconds) {}

  private final Database database;

  InstanceStore(Database database) {
    this.database = database;
  }

  void beat(String instanceId, List<String> channels, String routesJson) {
    database.inTransaction(
        "instance heartbeat",
        c -> {
          try (PreparedStatement statement = c.prepareStatement(BEAT)) {
            statement.setString(1, instanceId);
            statement.setArray(2, c.createArrayOf("text", channels.toArray()));
            statement.setString(3, routesJson);
            return statement.executeUpdate();
          }
        });
  }

  void stopped(String instanceId) {
    database.inTransaction(
        "instance stopped",
        c -> {
          try (PreparedStatement statement = c.prepareStatement(STOPPED)) {
            statement.setString(1, instanceId);
            return statement.executeUpdate();
          }
        });
  }

  void prune(Duration liveness, Duration routeMemory) {
    database.inTransaction(
        "pruning instances",
        c -> {
          try (PreparedStatement statement = c.prepareStatement(PRUNE)) {
            statement.setLong(1, liveness.toMillis());
            statement.setLong(2, routeMemory.toMillis());
            return statement.executeUpdate();
          }
        });
  }

  /** Instances running, and stopped ones whose last heartbeat is within {@code routeMemory}. */
  List<Peer> peers(Duration liveness, Duration routeMemory) {
    return database.inTransaction(
        "reading instances",
        c -> {
          try (PreparedStatement statement = c.prepareStatement(PEERS)) {
            statement.setLong(1, liveness.toMillis());
            statement.setLong(2, liveness.toMillis());
            statement.setLong(3, routeMemory.toMillis());
            List<Peer> peers = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
              while (rows.next()) {
                peers.add(
                    new Peer(
                        rows.getString(1),
                        texts(rows.getArray(2)),
                        rows.getString(3),
                        rows.getBoolean(4),
                        rows.getTimestamp(5).toInstant()));
              }
            }
            return peers;
          }
        });
  }

  List<Backlog> backlog() {
    return database.inTransaction(
        "reading channel backlog",
        c -> {
          try (PreparedStatement statement = c.prepareStatement(BACKLOG);
              ResultSet rows = statement.executeQuery()) {
            List<Backlog> result = new ArrayList<>();
            while (rows.next()) {
              Timestamp oldest = rows.getTimestamp(4);
              result.add(
                  new Backlog(
                      rows.getString(1),
                      rows.getLong(2),
                      rows.getLong(3),
                      oldest == null ? null : oldest.toInstant(),
                      Math.max(0, rows.getDouble(5))));
            }
            return result;
          }
        });
  }

  /** Open groups of {@code channel}, or of every channel when it is null. */
  List<OpenGroup> groups(String channel) {
    return database.inTransaction(
        "reading open groups",
        c -> {
          try (PreparedStatement statement = c.prepareStatement(GROUPS)) {
            statement.setString(1, channel);
            statement.setString(2, channel);
            List<OpenGroup> result = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
              while (rows.next()) {
                result.add(
                    new OpenGroup(
                        rows.getObject(1, UUID.class),
                        rows.getString(2),
                        rows.getTimestamp(3).toInstant().toString(),
                        rows.getInt(4),
                        rows.getInt(5),
                        rows.getLong(8),
                        rows.getTimestamp(6).toInstant().toString(),
                        rows.getDouble(7)));
              }
            }
            return result;
          }
        });
  }

  List<Bucket> buckets(List<String> keys) {
    if (keys.isEmpty()) {
      return List.of();
    }
    return database.inTransaction(
        "reading rate limits",
        c -> {
          try (PreparedStatement statement = c.prepareStatement(BUCKETS)) {
            statement.setArray(1, c.createArrayOf("text", keys.toArray()));
            List<Bucket> result = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
              while (rows.next()) {
                result.add(
                    new Bucket(
                        rows.getString(1),
                        rows.getBoolean(2),
                        rows.getBoolean(3),
                        rows.getDouble(4)));
              }
            }
            return result;
          }
        });
  }

  private static List<String> texts(Array array) throws SQLException {
    return array == null ? List.of() : Arrays.asList((String[]) array.getArray());
  }
}
