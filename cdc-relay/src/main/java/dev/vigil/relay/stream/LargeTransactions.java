package dev.vigil.relay.stream;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL transactions too large for one Kafka transaction (exactly-once delivery): the one
 * being relayed now, and the one Kafka ended for its timeout ({@code
 * VIGIL_RELAY_TRANSACTION_TIMEOUT}). One instance per relay, shared by its runs (a timeout ends the
 * run); thread-safe.
 *
 * <p>Why: a Kafka transaction stays open until the END of the PostgreSQL transaction it carries.
 * One that takes longer to relay than the timeout is aborted by the broker, the run restarts from
 * the committed offsets, and the same transaction times out again: every later alert waits behind
 * it for good. After {@link #CHUNK_AFTER_TIMEOUTS} timeouts of the same transaction (by xid) it is
 * published in chunks, each a Kafka transaction of its own without offsets; its offsets are
 * committed with its last chunk. That transaction alone is then at-least-once: a restart before its
 * END repeats the chunks already committed (consumers drop repeats by event id); nothing is lost.
 */
public final class LargeTransactions {
  /** Timeouts of one PostgreSQL transaction after which it is published in chunks. */
  static final int CHUNK_AFTER_TIMEOUTS = 2;

  private static final Logger LOG = LoggerFactory.getLogger(LargeTransactions.class);

  /** The PostgreSQL transaction being relayed. */
  private record Open(long xid, long sinceNanos, int rows, boolean chunked, int chunks) {}

  private final Duration timeout;
  private volatile Open open;
  // Guarded by this.
  private long timedOutXid = -1;
  private int timeouts;

  /**
   * @param timeout the producer's {@code transaction.timeout.ms}
   */
  public LargeTransactions(Duration timeout) {
    this.timeout = timeout;
  }

  Duration timeout() {
    return timeout;
  }

  /** A PostgreSQL transaction begins; whether it is to be published in chunks. */
  synchronized boolean began(long xid) {
    boolean chunked = xid >= 0 && xid == timedOutXid && timeouts >= CHUNK_AFTER_TIMEOUTS;
    open = new Open(xid, System.nanoTime(), 0, chunked, 0);
    if (chunked) {
      LOG.warn(
          "publishing PostgreSQL transaction in chunks, at least once: Kafka ended it {} times for"
              + " transaction.timeout.ms={} xid={}",
          timeouts,
          timeout.toMillis(),
          xid);
    }
    return chunked;
  }

  /** {@code rows} outbox rows of the open PostgreSQL transaction have been sent. */
  void rows(int rows) {
    Open o = open;
    if (o != null) {
      open = new Open(o.xid(), o.sinceNanos(), rows, o.chunked(), o.chunks());
    }
  }

  /** A chunk of the open PostgreSQL transaction was committed. */
  void chunkCommitted() {
    Open o = open;
    if (o != null) {
      open = new Open(o.xid(), System.nanoTime(), o.rows(), o.chunked(), o.chunks() + 1);
    }
  }

  /** The open PostgreSQL transaction ended and its offsets were committed (or it was a repeat). */
  synchronized void ended() {
    Open o = open;
    if (o != null && o.chunked()) {
      LOG.warn(
          "PostgreSQL transaction published in chunks, at least once xid={} rows={} chunks={}",
          o.xid(),
          o.rows(),
          o.chunks() + 1);
      timedOutXid = -1;
      timeouts = 0;
    }
    open = null;
  }

  /** Kafka ended the open transaction for its timeout. */
  synchronized void timedOut() {
    Open o = open;
    if (o == null) {
      return;
    }
    if (o.xid() == timedOutXid) {
      timeouts++;
    } else {
      timedOutXid = o.xid();
      timeouts = 1;
    }
    LOG.warn(
        "PostgreSQL transaction too large for one Kafka transaction xid={} rows_so_far={}"
            + " timeouts={} transaction.timeout.ms={}",
        o.xid(),
        o.rows(),
        timeouts,
        timeout.toMillis());
    open = null;
  }

  /** The run ended: nothing is being relayed now (what timed out is remembered). */
  void runEnded() {
    open = null;
  }

  /** Whether a chunk of the open (chunked) transaction should be committed now. */
  boolean chunkDue(int rowsInChunk) {
    Open o = open;
    return o != null
        && o.chunked()
        && (rowsInChunk >= CHUNK_ROWS
            || System.nanoTime() - o.sinceNanos() > timeout.toNanos() / 3);
  }

  /** Most outbox rows in one chunk. */
  static final int CHUNK_ROWS = 1_000;

  /**
   * Whether the open PostgreSQL transaction has been in one Kafka transaction for over half the
   * timeout (so it blocks every alert behind it, and may be ended by Kafka).
   */
  public boolean overdue() {
    Open o = open;
    return o != null && !o.chunked() && age(o).compareTo(timeout.dividedBy(2)) > 0;
  }

  /** What {@code /health} says about a large transaction, or null when there is none. */
  public String describe() {
    Open o = open;
    if (o == null) {
      return null;
    }
    if (o.chunked()) {
      return "PostgreSQL transaction xid="
          + o.xid()
          + " is published in chunks, at least once (Kafka ended it for its transaction timeout"
          + " of "
          + timeout.toSeconds()
          + " s); rows so far "
          + o.rows()
          + ", chunks committed "
          + o.chunks();
    }
    if (!overdue()) {
      return null;
    }
    return "PostgreSQL transaction xid="
        + o.xid()
        + " has been relayed in one Kafka transaction for "
        + age(o).toSeconds()
        + " s (rows so far "
        + o.rows()
        + "), more than half the transaction timeout of "
        + timeout.toSeconds()
        + " s (VIGIL_RELAY_TRANSACTION_TIMEOUT); later alerts wait behind it. If Kafka ends it "
        + CHUNK_AFTER_TIMEOUTS
        + " times, it is published in chunks";
  }

  private static Duration age(Open o) {
    return Duration.ofNanos(System.nanoTime() - o.sinceNanos());
  }
}
