package dev.vigil.relay.stream;

/**
 * The position committed in Kafka with exactly-once delivery is not in the server's history (see
 * {@link StoredPositionCheck}): streaming from it would skip every outbox row committed in the gap,
 * so the relay refuses to start (exit code 3).
 *
 * <p>Way out, after an operator has decided what to do about the gap: delete the stored offsets
 * with a tombstone and start the relay again; it then resumes from the replication slot's own
 * position ({@code confirmed_flush_lsn}) and sends again what the slot still holds (consumers drop
 * repeats by event id).
 */
public final class OffsetsAheadException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  OffsetsAheadException(String slot, String offsetsTopic, String problem, String slotPosition) {
    super(
        "refusing to start: "
            + problem
            + "; slot '"
            + slot
            + "' confirmed_flush_lsn="
            + slotPosition
            + ". Streaming from the stored position would skip every outbox row committed in"
            + " between. After dealing with the gap (e.g. re-send the missing outbox rows),"
            + " delete the stored offsets so the relay resumes from the slot's own position: "
            + SlotMissingException.tombstoneCommand(slot, offsetsTopic)
            + "; then start the relay again");
  }
}
