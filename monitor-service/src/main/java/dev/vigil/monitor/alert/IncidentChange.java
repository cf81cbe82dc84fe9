package dev.vigil.monitor.alert;

import java.time.Instant;
import java.util.UUID;

/**
 * What a {@link RecordingPlan} does to one incident: one it opens (and maybe closes again), or one
 * open before that it counts probes on or closes. The writer inserts the first kind and updates the
 * second; the plan then learns when the second was opened and whether its FAILED was written.
 */
final class IncidentChange {
  private final UUID id;
  private final String service;
  private final boolean opens;
  private final String firstError;
  private String lastError;
  private int probes;
  private boolean closes;
  private boolean announced = true;
  private Instant openedAt;
  private String heldReason;
  private Instant notBefore;

  private IncidentChange(UUID id, String service, boolean opens, String firstError, int probes) {
    this.id = id;
    this.service = service;
    this.opens = opens;
    this.firstError = firstError;
    this.lastError = firstError;
    this.probes = probes;
  }

  /** An incident the result of {@code service} opens, counting its {@code failures} so far. */
  static IncidentChange opening(UUID id, String service, String error, int failures) {
    return new IncidentChange(id, service, true, error, failures);
  }

  /** An incident open before the plan. */
  static IncidentChange openBefore(UUID id) {
    return new IncidentChange(id, null, false, null, 0);
  }

  /** One more result while it is open; {@code closing}: that result closes it. */
  void count(String error, boolean closing) {
    probes++;
    lastError = error != null ? error : lastError;
    closes |= closing;
  }

  /** Whether its FAILED is written; for one the plan opens, decided by the quiet period. */
  void announced(boolean written) {
    announced = written;
  }

  /**
   * For one the plan opens whose FAILED is held back: why (the quiet period's reason, {@code parent
   * <name> is down} or {@code parent <name> is failing (not confirmed yet)}) and when the announcer
   * looks at it again ({@link Instant#MAX}: when a parent recovers).
   */
  void held(String reason, Instant until) {
    announced = false;
    heldReason = reason;
    notBefore = until;
  }

  /** Whether its FAILED is held back until a parent recovers. */
  boolean heldForParent() {
    return Instant.MAX.equals(notBefore);
  }

  String heldReason() {
    return heldReason;
  }

  /**
   * When the announcer looks at it again, as text for the writer ("infinity" while a parent is
   * down).
   */
  String notBeforeText() {
    if (notBefore == null) {
      return null;
    }
    return notBefore.equals(Instant.MAX) ? "infinity" : Timestamps.text(notBefore);
  }

  /** When an incident open before was opened (the plan's own open at the plan's time). */
  void openedAt(Instant at) {
    openedAt = at;
  }

  UUID id() {
    return id;
  }

  /** The service of an incident the plan opens (null for one open before). */
  String service() {
    return service;
  }

  boolean opens() {
    return opens;
  }

  String firstError() {
    return firstError;
  }

  String lastError() {
    return lastError;
  }

  int probes() {
    return probes;
  }

  boolean closes() {
    return closes;
  }

  boolean announced() {
    return announced;
  }

  Instant openedAt() {
    return openedAt;
  }
}
