package dev.vigil.relay.stream;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * Decides which Debezium source offsets may be stored: only those from which a restart cannot skip
 * a row.
 *
 * <p>Why: Debezium 3.6's PostgreSQL connector resumes from a stored offset with its {@code
 * WalPositionLocator}: it replays the WAL from the slot and drops every message up to the first one
 * whose LSN differs from the stored {@code lsn_proc} (last completely processed LSN). A COPY (and
 * any other multi-insert) writes many rows in one WAL record, so many change events share one LSN;
 * an offset stored after the first of them makes the restart drop all the others (fixed upstream
 * after 3.6 with {@code lsn_events_processed}, debezium/dbz#1554). An offset stored at a COMMIT is
 * a position PostgreSQL itself resumes from without loss: its {@code lsn_proc}, {@code lsn_commit}
 * and {@code lsn} are the commit's LSN and its {@code messageType} is {@code COMMIT}; streamed from
 * that LSN, the slot sends every transaction committed after it, whole (how the stores hand it back
 * so that the locator does not get in the way: below).
 *
 * <p>How: the connector runs with {@code provide.transaction.metadata=true}, so every transaction
 * ends with an END record whose offset is the commit; heartbeats sent between transactions carry
 * the last commit too. The publisher marks a batch processed only up to its last record that {@link
 * #isSafe safely ends a position}; the rest (part of a transaction still streaming) stays unmarked
 * until a later batch brings its END. Debezium stores offsets and confirms the slot's LSN only from
 * marked records, so both sit on a commit, never inside a transaction, whatever the batch
 * boundaries. The cost is that a restart repeats the whole last transaction (duplicates on Kafka,
 * which consumers drop by event id) rather than losing its tail.
 *
 * <p>Snapshot records ({@code snapshot.mode=initial}) are safe too: a stored offset of an
 * unfinished initial snapshot makes Debezium take the snapshot again, and the last one resumes
 * streaming at the snapshot's consistent point.
 *
 * <p>Reading a commit back: the same restart search loses rows of a transaction that was still open
 * when the stored one committed (concurrent writers, the relay's own heartbeat). PostgreSQL resends
 * such a transaction whole, in commit order, but its rows carry their own LSNs, some below the
 * stored commit's; when one of them sits at exactly the stored commit's LSN (the WAL record right
 * after the commit record, which PostgreSQL 17 gives as the commit's end), the search takes it for
 * the stored event and drops every row of that transaction up to it (debezium/dbz#76, fixed after
 * 3.6). Nothing needs searching after a commit: streaming from the commit's LSN, PostgreSQL sends
 * exactly the transactions committed after it. So the stores hand a commit back {@link #forRestart
 * without its lsn_proc}, and Debezium then streams from its {@code lsn} (the commit's LSN) with no
 * search and no filtering.
 */
final class TransactionBoundary {
  static final String LSN = "lsn";
  static final String LSN_PROCESSED = "lsn_proc";
  static final String LSN_COMMIT = "lsn_commit";
  static final String MESSAGE_TYPE = "messageType";
  static final String SNAPSHOT = "snapshot";

  // Schemaless JSON, the embedded engine's offset format (see OffsetRecords).
  private static final JsonConverter JSON = new JsonConverter();

  static {
    JSON.configure(Map.of("schemas.enable", "false"), false);
  }

  private TransactionBoundary() {}

  /**
   * Whether a restart from {@code offset} loses nothing: an initial-snapshot position, or a commit
   * ({@code messageType=COMMIT} and {@code lsn_proc == lsn_commit}). A change inside a transaction,
   * a BEGIN, or an offset without the completely-processed LSN (nothing streamed yet) is not.
   */
  static boolean isSafe(Map<String, ?> offset) {
    if (offset == null) {
      return false;
    }
    if ("INITIAL".equals(String.valueOf(offset.get(SNAPSHOT)))) {
      return true;
    }
    return "COMMIT".equals(offset.get(MESSAGE_TYPE))
        && offset.get(LSN_PROCESSED) instanceof Number processed
        && offset.get(LSN_COMMIT) instanceof Number commit
        && processed.longValue() == commit.longValue();
  }

  /**
   * Index of the last element of {@code records} whose offset {@link #isSafe is safe}, or -1 when
   * none is: every element up to it may be marked processed.
   */
  static <T> int lastSafeIndex(List<T> records, Function<T, Map<String, ?>> offsetOf) {
    for (int i = records.size() - 1; i >= 0; i--) {
      if (isSafe(offsetOf.apply(records.get(i)))) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The offset Debezium should resume from when {@code offset} is stored: for a commit ({@link
   * #isSafe} and not a snapshot) the same offset without {@code lsn_proc}, so that its PostgreSQL
   * task streams from the commit's LSN ({@code lsn}, which Debezium sets to the commit's) without
   * its restart search; any other offset unchanged. The slot's LSN is confirmed from {@code
   * lsn_commit}, which stays.
   */
  static Map<String, ?> forRestart(Map<String, ?> offset) {
    if (!isSafe(offset)
        || "INITIAL".equals(String.valueOf(offset.get(SNAPSHOT)))
        || !(offset.get(LSN) instanceof Number lsn)
        || lsn.longValue() != ((Number) offset.get(LSN_COMMIT)).longValue()) {
      return offset;
    }
    Map<String, Object> resumed = new LinkedHashMap<>(offset);
    resumed.remove(LSN_PROCESSED);
    return resumed;
  }

  /**
   * {@link #forRestart} on a stored offset value as the offset stores hold it (schemaless JSON).
   * Null, and a value that is not a JSON object, come back unchanged: Debezium reports those.
   */
  static ByteBuffer forRestart(ByteBuffer stored) {
    if (stored == null) {
      return null;
    }
    byte[] bytes = new byte[stored.remaining()];
    stored.duplicate().get(bytes);
    Object value;
    try {
      value = JSON.toConnectData("", bytes).value();
    } catch (DataException e) {
      return stored;
    }
    if (!(value instanceof Map<?, ?> map)) {
      return stored;
    }
    @SuppressWarnings("unchecked")
    Map<String, ?> offset = (Map<String, ?>) map;
    Map<String, ?> resumed = forRestart(offset);
    return resumed == offset ? stored : ByteBuffer.wrap(JSON.fromConnectData("", null, resumed));
  }
}
