package dev.vigil.relay.stream;

/**
 * Offsets are stored for a replication slot that no longer exists (dropped, or the database was
 * restored from a backup). Starting anyway would create a new slot at the current WAL position and
 * silently skip every outbox row committed since the stored offset, so the relay refuses to start.
 *
 * <p>Way out, after an operator has decided what to do about the gap (for example re-inserting the
 * missing outbox rows or accepting the loss): delete the stale offsets with {@code delete from
 * relay_offsets where slot_name = '<slot>'} and start the relay again; it creates a new slot and
 * streams from there.
 */
public final class SlotMissingException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public SlotMissingException(String slot) {
    this(
        "replication slot '"
            + slot
            + "' is missing but offsets are stored for it: the slot was dropped or the database"
            + " restored, and outbox rows committed since the stored offset would be skipped."
            + " Refusing to start. After dealing with the gap, run: delete from relay_offsets"
            + " where slot_name = '"
            + slot
            + "'; then start the relay again",
        false);
  }

  private SlotMissingException(String message, boolean unused) {
    super(message);
  }

  /** The same, for offsets kept in the offsets topic of exactly-once delivery. */
  static SlotMissingException offsetsInKafka(String slot, String offsetsTopic) {
    return new SlotMissingException(
        "replication slot '"
            + slot
            + "' is missing but offsets are stored for it in Kafka topic "
            + offsetsTopic
            + ": the slot was dropped or the database restored, and outbox rows committed since"
            + " the stored offset would be skipped. Refusing to start. After dealing with the gap,"
            + " delete them with a tombstone: "
            + tombstoneCommand(slot, offsetsTopic)
            + "; then start the relay again",
        false);
  }

  /** The command that deletes the offsets of {@code slot} from the offsets topic (a tombstone). */
  static String tombstoneCommand(String slot, String offsetsTopic) {
    String key =
        "[\"vigil-relay-" + slot + "\",{\"server\":\"" + EngineProperties.TOPIC_PREFIX + "\"}]";
    return "echo '" + key + "#' | kcat -P -b <bootstrap> -t " + offsetsTopic + " -K '#' -Z";
  }
}
