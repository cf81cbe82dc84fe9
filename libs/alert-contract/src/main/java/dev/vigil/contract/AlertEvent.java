package dev.vigil.contract;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * One announced transition of one service: the payload of an outbox row and the value of a Kafka
 * record.
 *
 * <p>Guarantees downstream consumers can rely on: {@code eventId} is unique per event and stable
 * across redeliveries (de-duplicate on it); for one incident there is at most one FAILED and at
 * most one RECOVERED, and they share {@code incidentId} (as do the incident's REMINDERs, between
 * the two); events of one service arrive in the order they were committed. Delivery is exactly-once
 * for {@code read_committed} consumers of the topic, at-least-once otherwise.
 *
 * @param schemaVersion version of this JSON shape; only additive changes are made within a version
 * @param eventId the outbox row id; unique per event
 * @param incidentId the incident this transition opened (FAILED), closed (RECOVERED) or reminds of
 *     (REMINDER)
 * @param service the normalized service name, also the Kafka key
 * @param kind FAILED, RECOVERED or REMINDER
 * @param occurredAt when the monitor recorded the transition
 * @param consecutiveFailures failures in a row when the event was raised (for RECOVERED: before
 *     recovery)
 * @param lastError the last probe error, at most {@link #MAX_ERROR_LENGTH} characters, or null
 * @param openedAt when the incident was opened: always on RECOVERED and REMINDER; on FAILED only
 *     when the FAILED was deferred (opened in a maintenance window or silence and announced when it
 *     ended), so "down since" is the opening, not the end of the quiet period. Added within schema
 *     version 1 for FAILED (additive; readers older than this change refuse it on FAILED, so
 *     upgrade consumers first)
 * @param downtime RECOVERED and REMINDER only: from {@code openedAt} to {@code occurredAt}
 * @param resolution RECOVERED only, optional: why the incident was closed when it was not closed by
 *     successful checks, e.g. {@value #RESOLUTION_TARGET_DISABLED}; null (absent from the JSON) for
 *     an ordinary recovery. Added within schema version 1 (additive).
 * @param locations FAILED and RECOVERED of a target probed from several locations only: each fresh
 *     location's verdict when the event was raised ("up", or its last error) by location name,
 *     sorted; null (absent from the JSON) for a target probed from one place. Added within schema
 *     version 1 (additive).
 * @param impact FAILED and RECOVERED of a target other targets depend on ({@code dependsOn}) only:
 *     how many of those children were down when the event was raised and the first names; null
 *     (absent from the JSON) for a target without children. Added within schema version 1
 *     (additive).
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
    Duration downtime,
    String resolution,
    Map<String, String> locations,
    Impact impact) {

  /** The schema version this code writes, and the only one it reads. */
  public static final int CURRENT_SCHEMA_VERSION = 1;

  /** Upper bound of {@link #lastError}; longer errors are cut by {@link #boundedError(String)}. */
  public static final int MAX_ERROR_LENGTH = 500;

  /** Upper bound of {@link #resolution}. */
  public static final int MAX_RESOLUTION_LENGTH = 200;

  /**
   * {@link #resolution} of the RECOVERED written when a target with an open incident is disabled.
   */
  public static final String RESOLUTION_TARGET_DISABLED = "target disabled";

  /**
   * {@link #resolution} of the RECOVERED written when a target with an open incident is deleted.
   */
  public static final String RESOLUTION_TARGET_DELETED = "target deleted";

  /** Upper bound of the number of {@link #locations}. */
  public static final int MAX_LOCATIONS = 64;

  /** Upper bound of the names listed in {@link #impact}. */
  public static final int MAX_IMPACT_NAMES = 5;

  /** Upper bound of one location's verdict in {@link #locations}. */
  public static final int MAX_VERDICT_LENGTH = 200;

  /** What a location name looks like (the monitor's VIGIL_MONITOR_LOCATION and a target's list). */
  public static final Pattern LOCATION_NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,31}");

  /** An event without per-location verdicts (a target probed from one place). */
  public AlertEvent(
      int schemaVersion,
      UUID eventId,
      UUID incidentId,
      String service,
      AlertKind kind,
      Instant occurredAt,
      int consecutiveFailures,
      String lastError,
      Instant openedAt,
      Duration downtime,
      String resolution) {
    this(
        schemaVersion,
        eventId,
        incidentId,
        service,
        kind,
        occurredAt,
        consecutiveFailures,
        lastError,
        openedAt,
        downtime,
        resolution,
        null,
        null);
  }

  /** An event without impact (a target no other target depends on). */
  public AlertEvent(
      int schemaVersion,
      UUID eventId,
      UUID incidentId,
      String service,
      AlertKind kind,
      Instant occurredAt,
      int consecutiveFailures,
      String lastError,
      Instant openedAt,
      Duration downtime,
      String resolution,
      Map<String, String> locations) {
    this(
        schemaVersion,
        eventId,
        incidentId,
        service,
        kind,
        occurredAt,
        consecutiveFailures,
        lastError,
        openedAt,
        downtime,
        resolution,
        locations,
        null);
  }

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
    if (kind == AlertKind.FAILED) {
      if (downtime != null || resolution != null) {
        throw new IllegalArgumentException("downtime and resolution are not set on FAILED");
      }
      if (openedAt != null && openedAt.isAfter(occurredAt)) {
        throw new IllegalArgumentException("openedAt must not be after occurredAt on FAILED");
      }
    } else {
      Objects.requireNonNull(openedAt, "openedAt is required for " + kind);
      Objects.requireNonNull(downtime, "downtime is required for " + kind);
      if (downtime.isNegative()) {
        throw new IllegalArgumentException("downtime must not be negative, was " + downtime);
      }
      if (kind == AlertKind.REMINDER && resolution != null) {
        throw new IllegalArgumentException("resolution is only set on RECOVERED");
      }
    }
    if (resolution != null
        && (resolution.isBlank() || resolution.length() > MAX_RESOLUTION_LENGTH)) {
      throw new IllegalArgumentException(
          "resolution must be 1-" + MAX_RESOLUTION_LENGTH + " characters when present");
    }
    locations = checkedLocations(kind, locations);
    if (impact != null && kind == AlertKind.REMINDER) {
      throw new IllegalArgumentException("impact is only set on FAILED and RECOVERED");
    }
  }

  /**
   * The children of a target that were down with it: their number and the first {@link
   * #MAX_IMPACT_NAMES} of their names, sorted.
   *
   * @param children how many children were down (at least 1)
   * @param names the first of their names, sorted (1 to {@link #MAX_IMPACT_NAMES}, at most {@code
   *     children})
   */
  public record Impact(int children, List<String> names) {
    public Impact {
      Objects.requireNonNull(names, "impact names are missing");
      names = List.copyOf(names);
      if (children < 1) {
        throw new IllegalArgumentException("impact children must be >= 1, was " + children);
      }
      if (names.isEmpty() || names.size() > Math.min(children, MAX_IMPACT_NAMES)) {
        throw new IllegalArgumentException(
            "impact names must have 1-min(children, " + MAX_IMPACT_NAMES + ") entries");
      }
      for (String name : names) {
        if (!ServiceNames.isValid(name)) {
          throw new IllegalArgumentException(
              "impact name '" + name + "' is not a normalized service name");
        }
      }
    }
  }

  /** This FAILED or RECOVERED event with the impact on its children (null: none down). */
  public AlertEvent withImpact(Impact children) {
    return new AlertEvent(
        schemaVersion,
        eventId,
        incidentId,
        service,
        kind,
        occurredAt,
        consecutiveFailures,
        lastError,
        openedAt,
        downtime,
        resolution,
        locations,
        children);
  }

  private static Map<String, String> checkedLocations(AlertKind kind, Map<String, String> given) {
    if (given == null) {
      return null;
    }
    if (kind == AlertKind.REMINDER) {
      throw new IllegalArgumentException("locations are only set on FAILED and RECOVERED");
    }
    if (given.isEmpty() || given.size() > MAX_LOCATIONS) {
      throw new IllegalArgumentException(
          "locations must have 1-" + MAX_LOCATIONS + " entries when present");
    }
    Map<String, String> sorted = new TreeMap<>();
    given.forEach(
        (name, verdict) -> {
          if (name == null || !LOCATION_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                "location '" + name + "' is not a location name ([a-z0-9][a-z0-9-]{0,31})");
          }
          if (verdict == null || verdict.isBlank() || verdict.length() > MAX_VERDICT_LENGTH) {
            throw new IllegalArgumentException(
                "verdict of location " + name + " must be 1-" + MAX_VERDICT_LENGTH + " characters");
          }
          sorted.put(name, verdict);
        });
    return Collections.unmodifiableMap(sorted);
  }

  /** This FAILED or RECOVERED event with per-location verdicts (cut to their bound). */
  public AlertEvent withLocations(Map<String, String> verdicts) {
    Map<String, String> bounded = new TreeMap<>();
    verdicts.forEach((name, verdict) -> bounded.put(name, boundedVerdict(verdict)));
    return new AlertEvent(
        schemaVersion,
        eventId,
        incidentId,
        service,
        kind,
        occurredAt,
        consecutiveFailures,
        lastError,
        openedAt,
        downtime,
        resolution,
        bounded,
        impact);
  }

  private static String boundedVerdict(String verdict) {
    if (verdict == null || verdict.isBlank()) {
      return "down";
    }
    return verdict.length() <= MAX_VERDICT_LENGTH
        ? verdict
        : verdict.substring(0, MAX_VERDICT_LENGTH - 1) + "…";
  }

  /** A FAILED event for a newly opened incident. */
  public static AlertEvent failed(
      UUID eventId,
      UUID incidentId,
      String service,
      Instant occurredAt,
      int consecutiveFailures,
      String lastError) {
    return deferredFailed(
        eventId, incidentId, service, occurredAt, consecutiveFailures, lastError, null);
  }

  /**
   * A FAILED event announced at {@code occurredAt} for an incident opened earlier, at {@code
   * openedAt} (in a quiet period); {@code openedAt} null is an ordinary FAILED.
   */
  public static AlertEvent deferredFailed(
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
        AlertKind.FAILED,
        occurredAt,
        consecutiveFailures,
        boundedError(lastError),
        openedAt,
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
    return ofOpenedIncident(
        AlertKind.RECOVERED,
        eventId,
        incidentId,
        service,
        occurredAt,
        consecutiveFailures,
        lastError,
        openedAt);
  }

  /**
   * A REMINDER that the incident opened at {@code openedAt} is still open: a new event id, the
   * incident's id.
   */
  public static AlertEvent reminder(
      UUID eventId,
      UUID incidentId,
      String service,
      Instant occurredAt,
      int consecutiveFailures,
      String lastError,
      Instant openedAt) {
    return ofOpenedIncident(
        AlertKind.REMINDER,
        eventId,
        incidentId,
        service,
        occurredAt,
        consecutiveFailures,
        lastError,
        openedAt);
  }

  private static AlertEvent ofOpenedIncident(
      AlertKind kind,
      UUID eventId,
      UUID incidentId,
      String service,
      Instant occurredAt,
      int consecutiveFailures,
      String lastError,
      Instant openedAt) {
    Duration downtime = Duration.between(openedAt, occurredAt);
    return new AlertEvent(
        CURRENT_SCHEMA_VERSION,
        eventId,
        incidentId,
        service,
        kind,
        occurredAt,
        consecutiveFailures,
        boundedError(lastError),
        openedAt,
        downtime.isNegative() ? Duration.ZERO : downtime,
        null);
  }

  /** This RECOVERED event with a {@link #resolution} saying why the incident was closed. */
  public AlertEvent withResolution(String why) {
    if (kind != AlertKind.RECOVERED) {
      throw new IllegalStateException("only a RECOVERED event has a resolution");
    }
    return new AlertEvent(
        schemaVersion,
        eventId,
        incidentId,
        service,
        kind,
        occurredAt,
        consecutiveFailures,
        lastError,
        openedAt,
        downtime,
        why,
        locations,
        impact);
  }

  /**
   * Cuts an error message to {@link #MAX_ERROR_LENGTH} characters, marking the cut with an
   * ellipsis.
   */
  public static String boundedError(String error) {
    if (error == null || error.length() <= MAX_ERROR_LENGTH) {
      return error;
    }
    int end = MAX_ERROR_LENGTH - 1;
    // Never cut a surrogate pair in half: a lone surrogate is not valid text anywhere downstream.
    if (Character.isHighSurrogate(error.charAt(end - 1))) {
      end--;
    }
    return error.substring(0, end) + "…";
  }
}
