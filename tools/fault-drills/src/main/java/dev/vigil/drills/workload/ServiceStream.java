package dev.vigil.drills.workload;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertKind;
import java.time.Instant;
import java.util.UUID;

/**
 * One service's strictly alternating FAILED / RECOVERED sequence. Only its owning writer thread
 * touches it; between drills the writer threads are joined and new ones started, and {@link
 * Thread#join()} makes the state visible to the next owner.
 */
final class ServiceStream {
  private final String service;
  private long committed;
  private AlertEvent pending;
  private AlertEvent lastFailed;

  ServiceStream(String service) {
    this.service = service;
  }

  /** The next event; the same one again until {@link #committed()} is called. */
  AlertEvent nextEvent() {
    if (pending != null) {
      return pending;
    }
    Instant now = Instant.now();
    if (lastFailed == null) {
      pending =
          AlertEvent.failed(
              UUID.randomUUID(),
              UUID.randomUUID(),
              service,
              now,
              3,
              "drill: connection refused (seq " + committed + ")");
    } else {
      pending =
          AlertEvent.recovered(
              UUID.randomUUID(),
              lastFailed.incidentId(),
              service,
              now,
              3,
              lastFailed.lastError(),
              lastFailed.occurredAt());
    }
    return pending;
  }

  /** Marks the pending event committed; returns its position in the service's order. */
  long committed() {
    AlertEvent done = pending;
    pending = null;
    lastFailed = done.kind() == AlertKind.FAILED ? done : null;
    return committed++;
  }
}
