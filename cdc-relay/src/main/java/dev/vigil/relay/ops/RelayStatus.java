package dev.vigil.relay.ops;

import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The relay instance's current state, as /health and the metrics report it. Thread-safe. */
public final class RelayStatus {
  /** What an instance is doing. */
  public enum State {
    /** Holds the lock and streams from the slot to Kafka. */
    STREAMING,
    /** Waits for the lock (another instance streams) or is starting up. */
    STANDBY,
    /** Cannot stream; the reason says why. Retried unless the failure is fatal. */
    FAILING
  }

  /**
   * One observation of the state.
   *
   * @param state the state
   * @param reason human-readable reason (never a secret), or null
   * @param since when the state was entered
   */
  public record Snapshot(State state, String reason, Instant since) {
    public Snapshot {
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(since, "since");
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(RelayStatus.class);

  private final String instanceId;
  private final AtomicReference<Snapshot> current;
  private volatile boolean active;
  private volatile String largeTransaction;

  public RelayStatus(String instanceId) {
    this.instanceId = instanceId;
    this.current = new AtomicReference<>(new Snapshot(State.STANDBY, "starting", Instant.now()));
  }

  public String instanceId() {
    return instanceId;
  }

  public Snapshot snapshot() {
    return current.get();
  }

  /** True while this instance holds the lock (it is the active relay, even while failing). */
  public boolean active() {
    return active;
  }

  public void active(boolean holdsLock) {
    active = holdsLock;
  }

  /**
   * A PostgreSQL transaction too large for one Kafka transaction (xid, rows so far), or null: shown
   * on {@code /health} whatever the state.
   */
  public String largeTransaction() {
    return largeTransaction;
  }

  public void largeTransaction(String description) {
    largeTransaction = description;
  }

  public void streaming() {
    set(State.STREAMING, null);
  }

  public void standby(String reason) {
    set(State.STANDBY, reason);
  }

  public void failing(String reason) {
    set(State.FAILING, reason);
  }

  private void set(State state, String reason) {
    Snapshot previous = current.getAndSet(new Snapshot(state, reason, Instant.now()));
    if (previous.state() != state || !Objects.equals(previous.reason(), reason)) {
      LOG.info("relay state instance={} state={} reason={}", instanceId, state, reason);
    }
  }
}
