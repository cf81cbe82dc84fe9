package dev.vigil.relay.stream;

/**
 * Kafka fenced this relay's transactional producer: another producer with the same transactional id
 * (derived from the replication slot) has started, so another relay on the same slot has taken
 * over, or this relay's transaction stayed open longer than the broker allows and was aborted.
 * Either way this instance is a zombie: its batch was not committed, nothing of it is marked
 * processed (the slot does not advance), and it must not write again. The relay stops for good;
 * {@code RelayMain} exits 4 so a supervisor can start it afresh (as a standby while the other one
 * streams).
 */
public final class RelayFencedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  RelayFencedException(String transactionalId, Throwable cause) {
    super(
        "fenced: a newer relay with transactional id "
            + transactionalId
            + " (same slot) took over (with Kafka's transaction version 1 also: this relay's"
            + " transaction outlived transaction.timeout.ms); this instance stopped and will not"
            + " write again (error="
            + cause.getClass().getSimpleName()
            + ")",
        cause);
  }
}
