package dev.vigil.drills.reconcile;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The reconciliation of one drill's events: the outbox is the source of truth, the Kafka topic, the
 * notifier's receipts and the receiver's store are compared with it.
 *
 * @param eventsCommitted outbox rows committed during the drill (and found in the outbox)
 * @param services services that had events in the drill
 * @param notInOutbox events the workload saw committed but the outbox does not hold (must be 0)
 * @param kafkaRecords records of the drill's events on the topic, duplicates included
 * @param kafkaDuplicates records beyond the first for an event id, read {@code read_committed}
 *     (what the notifier reads; 0 with the exactly-once relay)
 * @param kafkaMissing committed events with no record on the topic
 * @param kafkaOrderViolations events that reached Kafka before an event of the same service that
 *     was committed earlier (plus services whose records span several partitions)
 * @param receipts notifier receipts for the drill's events (one per event id at most)
 * @param delivered receipts marked delivered
 * @param dead receipts parked as dead
 * @param stored events stored at the receiver
 * @param storedTwice receiver rows beyond the first for an event id
 * @param lost committed events not stored at the receiver
 * @param receiverOrderViolations events stored before an event of the same service that was
 *     committed earlier
 * @param kafkaDuplicatesReadUncommitted records beyond the first for an event id, read {@code
 *     read_uncommitted} (also counts records of aborted relay transactions)
 * @param exactlyOnce whether the drill is held to the exactly-once criterion: read_committed
 *     duplicates 0 (besides missing 0 and order violations 0)
 */
public record DrillCounts(
    long eventsCommitted,
    long services,
    long notInOutbox,
    long kafkaRecords,
    long kafkaDuplicates,
    long kafkaMissing,
    long kafkaOrderViolations,
    long receipts,
    long delivered,
    long dead,
    long stored,
    long storedTwice,
    long lost,
    long receiverOrderViolations,
    long kafkaDuplicatesReadUncommitted,
    boolean exactlyOnce) {

  /**
   * Pass: nothing lost, nothing stored twice, per-service order intact everywhere; for a drill held
   * to exactly-once also no duplicate on Kafka for a read_committed reader.
   */
  @JsonProperty("passed")
  public boolean passed() {
    return (!exactlyOnce || kafkaDuplicates == 0)
        && lost == 0
        && storedTwice == 0
        && kafkaMissing == 0
        && notInOutbox == 0
        && kafkaOrderViolations == 0
        && receiverOrderViolations == 0;
  }
}
