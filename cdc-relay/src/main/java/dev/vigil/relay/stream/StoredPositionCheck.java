package dev.vigil.relay.stream;

import java.sql.SQLException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Whether the server can resume from the position committed in Kafka (exactly-once delivery),
 * decided before the engine starts.
 *
 * <p>Why: PostgreSQL accepts a start position ahead of the slot's {@code confirmed_flush_lsn} and
 * skips every transaction that commits below it. After a restore of the database (a volume snapshot
 * that keeps {@code pg_replslot}) or a failover to a standby that had not received everything, the
 * position in Kafka is ahead of the server's history: the outbox rows committed in that gap would
 * never be published while {@code /health} says streaming. At-least-once delivery keeps its offsets
 * in the database, which is restored with the data, so it is not affected.
 *
 * <p>The rules, in this order: a stored system identifier other than the server's (another
 * cluster); a stored position beyond the server's current WAL position (the server never wrote that
 * far); a stored timeline the server's history does not contain, or a stored position beyond the
 * point where the server's history left the stored timeline (a promoted standby that had not
 * received the rest). What is not caught: a restore after which new WAL has already passed the
 * stored position on the same timeline before the relay starts (nothing on the server tells that
 * WAL apart from the one that was relayed).
 */
final class StoredPositionCheck {
  /** The identity stored with the offsets; absent for offsets written before it was stored. */
  record Origin(String systemId, int timeline) {}

  /** Where the server's history left a timeline; empty when that timeline is not in it. */
  @FunctionalInterface
  interface Switchpoints {
    OptionalLong of(int ancestor) throws SQLException;
  }

  private StoredPositionCheck() {}

  /** Why the server cannot resume from {@code storedLsn}, or empty when it can. */
  static Optional<String> problem(
      long storedLsn, Optional<Origin> origin, ServerIdentity server, Switchpoints history)
      throws SQLException {
    String stored = ServerIdentity.lsn(storedLsn);
    if (origin.isPresent() && !origin.get().systemId().equals(server.systemId())) {
      return Optional.of(
          "the offsets were stored for database system "
              + origin.get().systemId()
              + " but the server is system "
              + server.systemId()
              + " (another cluster: new initdb or a different server)");
    }
    if (storedLsn > server.walPosition()) {
      return Optional.of(
          "the stored position "
              + stored
              + " is ahead of the server's current WAL position "
              + ServerIdentity.lsn(server.walPosition())
              + " (the database was restored or failed over to a server that had not received"
              + " everything)");
    }
    if (origin.isEmpty() || origin.get().timeline() == server.timeline()) {
      return Optional.empty();
    }
    int storedTimeline = origin.get().timeline();
    OptionalLong left = storedTimeline < server.timeline() ? history.of(storedTimeline) : null;
    if (left == null || left.isEmpty()) {
      return Optional.of(
          "the offsets were stored on timeline "
              + storedTimeline
              + ", which is not in the history of the server's timeline "
              + server.timeline()
              + " (the server is on another branch of the database's history)");
    }
    if (storedLsn > left.getAsLong()) {
      return Optional.of(
          "the stored position "
              + stored
              + " on timeline "
              + storedTimeline
              + " is beyond "
              + ServerIdentity.lsn(left.getAsLong())
              + ", where the server's timeline "
              + server.timeline()
              + " left it (a standby promoted before it had received everything)");
    }
    return Optional.empty();
  }
}
