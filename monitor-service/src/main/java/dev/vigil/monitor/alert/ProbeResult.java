package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.ServiceNames;
import dev.vigil.kit.tracing.TraceParent;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * The outcome of one check of one service, before it is recorded.
 *
 * <p>Results are ordered by the database, never by a host's clock: {@code order} is a number from
 * the database sequence {@code result_order}, taken when a scheduled probe was claimed. A result
 * without one (pushed, missed heartbeat) is numbered when it is recorded. The recorder rejects a
 * result whose number is not above the last recorded one, so a slow probe never overwrites a newer
 * state, whatever the clocks of the instances say.
 *
 * @param service normalized service (target) name
 * @param status UP or DOWN
 * @param startedAt when the check started by the clock of whoever ran it (informational, kept to
 *     microseconds); null means "at recording", and the recorder takes the database's time. For a
 *     pushed result it is the external checker's own value, compared only with its earlier values.
 * @param latencyMs how long the probe took, or null if unknown (pushed results)
 * @param httpStatus the HTTP status received, or null
 * @param error short reason for DOWN (never credentials or query strings), null for UP
 * @param source scheduled probe, pushed result or missed heartbeat
 * @param order the {@code result_order} number taken when the check was claimed, or null: numbered
 *     when recorded
 * @param location the location the result comes from, for a target probed from several locations
 *     (its probe ran on an instance of that location, or a checker pushed it naming it); null for a
 *     target probed from one place
 * @param trace the traceparent of the span that produced the result (the probe's, or the push's),
 *     written with the outbox row of an event the result decides; null when not traced
 */
public record ProbeResult(
    String service,
    ProbeStatus status,
    Instant startedAt,
    Long latencyMs,
    Integer httpStatus,
    String error,
    ResultSource source,
    Long order,
    String location,
    TraceParent trace) {

  /** A result without trace context. */
  public ProbeResult(
      String service,
      ProbeStatus status,
      Instant startedAt,
      Long latencyMs,
      Integer httpStatus,
      String error,
      ResultSource source,
      Long order,
      String location) {
    this(service, status, startedAt, latencyMs, httpStatus, error, source, order, location, null);
  }

  /** A result of a target probed from one place. */
  public ProbeResult(
      String service,
      ProbeStatus status,
      Instant startedAt,
      Long latencyMs,
      Integer httpStatus,
      String error,
      ResultSource source,
      Long order) {
    this(service, status, startedAt, latencyMs, httpStatus, error, source, order, null);
  }

  public ProbeResult {
    if (!ServiceNames.isValid(service)) {
      throw new IllegalArgumentException("service '" + service + "' is not a normalized name");
    }
    Objects.requireNonNull(status, "status is missing");
    Objects.requireNonNull(source, "source is missing");
    if (startedAt == null && source == ResultSource.PROBE) {
      throw new IllegalArgumentException("a probe result needs startedAt");
    }
    startedAt = startedAt == null ? null : startedAt.truncatedTo(ChronoUnit.MICROS);
    error = AlertEvent.boundedError(error);
    if (location != null && !AlertEvent.LOCATION_NAME.matcher(location).matches()) {
      throw new IllegalArgumentException(
          "location '" + location + "' is not a location name ([a-z0-9][a-z0-9-]{0,31})");
    }
  }

  /** This result, ordered by the number its claim took from {@code result_order}. */
  public ProbeResult withOrder(long claimOrder) {
    return new ProbeResult(
        service,
        status,
        startedAt,
        latencyMs,
        httpStatus,
        error,
        source,
        claimOrder,
        location,
        trace);
  }

  /** This result, from {@code from} (null: a target probed from one place). */
  public ProbeResult at(String from) {
    return new ProbeResult(
        service, status, startedAt, latencyMs, httpStatus, error, source, order, from, trace);
  }

  /** This result, produced under the span {@code traceParent} names (null: not traced). */
  public ProbeResult tracedBy(TraceParent traceParent) {
    return new ProbeResult(
        service,
        status,
        startedAt,
        latencyMs,
        httpStatus,
        error,
        source,
        order,
        location,
        traceParent);
  }

  /** An UP result of a scheduled probe (numbered when recorded). */
  public static ProbeResult up(String service, Instant startedAt, long latencyMs, int httpStatus) {
    return new ProbeResult(
        service, ProbeStatus.UP, startedAt, latencyMs, httpStatus, null, ResultSource.PROBE, null);
  }

  /** A DOWN result of a scheduled probe (numbered when recorded). */
  public static ProbeResult down(
      String service, Instant startedAt, long latencyMs, Integer httpStatus, String error) {
    return new ProbeResult(
        service,
        ProbeStatus.DOWN,
        startedAt,
        latencyMs,
        httpStatus,
        error,
        ResultSource.PROBE,
        null);
  }

  /** The DOWN result the monitor records for a push target that did not report in time. */
  public static ProbeResult missedHeartbeat(String service, String error, long claimOrder) {
    return new ProbeResult(
        service, ProbeStatus.DOWN, null, null, null, error, ResultSource.HEARTBEAT, claimOrder);
  }
}
