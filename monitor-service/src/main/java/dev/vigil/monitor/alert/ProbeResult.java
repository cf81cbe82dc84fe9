package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.ServiceNames;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * The outcome of one check of one service, before it is recorded.
 *
 * @param service normalized service (target) name
 * @param status UP or DOWN
 * @param startedAt when the probe started; results are ordered by it and a result that did not
 *     start after the last recorded one is rejected as stale (kept to microseconds, as stored)
 * @param latencyMs how long the probe took, or null if unknown (pushed results)
 * @param httpStatus the HTTP status received, or null
 * @param error short reason for DOWN (never credentials or query strings), null for UP
 * @param source scheduled probe or pushed result
 */
public record ProbeResult(
    String service,
    ProbeStatus status,
    Instant startedAt,
    Long latencyMs,
    Integer httpStatus,
    String error,
    ResultSource source) {

  public ProbeResult {
    if (!ServiceNames.isValid(service)) {
      throw new IllegalArgumentException("service '" + service + "' is not a normalized name");
    }
    Objects.requireNonNull(status, "status is missing");
    Objects.requireNonNull(startedAt, "startedAt is missing");
    Objects.requireNonNull(source, "source is missing");
    startedAt = startedAt.truncatedTo(ChronoUnit.MICROS);
    error = AlertEvent.boundedError(error);
  }

  /** An UP result of a scheduled probe. */
  public static ProbeResult up(String service, Instant startedAt, long latencyMs, int httpStatus) {
    return new ProbeResult(
        service, ProbeStatus.UP, startedAt, latencyMs, httpStatus, null, ResultSource.PROBE);
  }

  /** A DOWN result of a scheduled probe. */
  public static ProbeResult down(
      String service, Instant startedAt, long latencyMs, Integer httpStatus, String error) {
    return new ProbeResult(
        service, ProbeStatus.DOWN, startedAt, latencyMs, httpStatus, error, ResultSource.PROBE);
  }
}
