package dev.vigil.drills.reconcile;

import java.util.UUID;

/**
 * One event seen downstream, in the order it was seen: a Kafka record (position = offset within its
 * partition) or a row in the receiver's store (position = store sequence).
 *
 * @param eventId the event id (Kafka {@code id} header, receiver {@code event_id})
 * @param service the service (Kafka key, receiver column)
 * @param partition the Kafka partition; 0 for the receiver
 * @param position offset or store sequence: increasing in the order things were written
 */
public record Observed(UUID eventId, String service, int partition, long position) {}
