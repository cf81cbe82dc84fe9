package dev.vigil.contract;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One announced transition of one service: the payload of an outbox row and the value of a Kafka
 * record.
 *
 * <p>Guarantees downstream consumers can rely on: {@code eventId} is unique per event and stable
 * across redeliveries (de-duplicate on it); for one incident there is at most one FAILED and at
 * most one RECOVERED, and they share {@code incidentId}; events of one service arrive in the order
 * they were committed. Delivery is at-least-once.
 *
 * @param schemaVersion version of this JSON shape; only additive changes are made within a version
 * @param eventId the outbox row id; unique per event
 * @param incidentId the incident this transition opened (FAILED) or closed (RECOVERED)
 * @param service the normalized service name, also the Kafka key
 * @param kind FAILED or RECOVERED
 * @param occurredAt when the monitor recorded the transition
 * @param consecutiveFailures failures in a row when the event was raised (for RECOVERED: before
 *     recovery)
 * @param lastError the last probe error, at most {@link #MAX_ERROR_LENGTH} characters, or null
 * @param openedAt RECOVERED only: when the incident was opened
 * @param downtime RECOVERED only: from {@code openedAt} to {@code occurredAt}
 */
public record AlertEvent(
    int schemaVersion,
    UUID eventId,
    UUID incidentId,
    String service,
    AlertKind kind,
    Instant occurredAt,
    int consecutiveFailures,
    String lastError,
    Instant openedAt,
    Duration downtime) {

  /** The schema version this code writes, and the only one it reads. */
  public static final int CURRENT_SCHEMA_VERSION = 1;

  /** Upper bound of {@link #lastError}; longer errors are cut by {@link #boundedError(String)}. */
  public static final int MAX_ERROR_LENGTH = 500;

  public AlertEvent {
    if (schemaVersion != CURRENT_SCHEMA_VERSION) {
      throw new IllegalArgumentException(
          "schemaVersion "
              + schemaVersion
              + " is not supported (expected "
              + CURRENT_SCHEMA_VERSION
              + ")");
    }
    Objects.requireNonNull(eventId, "eventId is missing");
    Objects.requireNonNull(incidentId, "incidentId is missing");
    Objects.requireNonNull(kind, "kind is missing");
    Objects.requireNonNull(occurredAt, "occurredAt is missing");
    if (!ServiceNames.isValid(service)) {
      throw new IllegalArgumentException(
          "service '" + service + "' is not a normalized service name");
    }
    if (consecutiveFailures < 0) {
      throw new IllegalArgumentException(
          "consecutiveFailures must be >= 0, was " + consecutiveFailures);
    }
    if (lastError != null && lastError.length() > MAX_ERROR_LENGTH) {
      throw new IllegalArgumentException(
          "lastError must be at most "
              + MAX_ERROR_LENGTH
              + " characters, was "
              + lastError.length());
    }
    if (kind == AlertKind.RECOVERED) {
      Objects.requireNonNull(openedAt, "openedAt is required for RECOVERED");
      Objects.requireNonNull(downtime, "downtime is required for RECOVERED");
      if (downtime.isNegative()) {
        throw new IllegalArgumentException("downtime must not be negative, was " + downtime);
      }
    } else if (openedAt != null || downtime != null) {
      throw new IllegalArgumentException("openedAt and downtime are only set on RECOVERED");
    }
  }

  /** A FAILED event for a newly opened incident. */
  public static AlertEvent failed(
      UUID eventId,
      UUID incidentId,
      String service,
      Instant occurredAt,
      int consecutiveFailures,
      String lastError) {
    return new AlertEvent(
        CURRENT_SCHEMA_VERSION,
        eventId,
        incidentId,
        service,
        AlertKind.FAILED,
        occurredAt,
        consecutiveFailures,
        boundedError(lastError),
        null,
        null);
  }

  /** A RECOVERED event closing the incident opened at {@code openedAt}. */
  public static AlertEvent recovered(
      UUID eventId,
      UUID incidentId,
      String service,
      Instant occurredAt,
      int consecutiveFailures,
      String lastError,
      Instant openedAt) {
    return new AlertEvent(
        CURRENT_SCHEMA_VERSION,
        eventId,
        incidentId,
        service,
        AlertKind.RECOVERED,
        occurredAt,
        consecutiveFailures,
        boundedError(lastError),
        openedAt,
        Duration.between(openedAt, occurredAt).isNegative()
            ? Duration.ZERO
            : Duration.between(openedAt, occurredAt));
  }

  /**
   * Cuts an error message to {@link #MAX_ERROR_LENGTH} characters, marking the cut with an
   * ellipsis.
   */
  public static String boundedError(String error) {
    if (error == null || error.length() <= MAX_ERROR_LENGTH) {
      return error;
    }
    return error.substring(0, MAX_ERROR_LENGTH - 1) + "…";
  }
}
