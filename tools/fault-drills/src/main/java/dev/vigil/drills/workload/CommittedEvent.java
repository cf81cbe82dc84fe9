package dev.vigil.drills.workload;

import dev.vigil.contract.AlertKind;
import java.util.UUID;

/**
 * An outbox row the workload saw committed.
 *
 * @param eventId the outbox id (= event id)
 * @param service the service (Kafka key)
 * @param kind FAILED or RECOVERED; per service they strictly alternate
 * @param incidentId shared by a FAILED and the RECOVERED after it
 * @param serviceSeq position in the service's commit order, from 0 over the whole run
 * @param drill the drill during which it was committed
 * @param committedNanos {@link System#nanoTime()} when the commit returned
 */
public record CommittedEvent(
    UUID eventId,
    String service,
    AlertKind kind,
    UUID incidentId,
    long serviceSeq,
    String drill,
    long committedNanos) {}
