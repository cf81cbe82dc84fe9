package dev.vigil.monitor.target;

import dev.vigil.contract.ServiceNames;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * One target as declared. Built by {@link TargetParser}, which reports problems with the field
 * name; the compact constructor re-checks the invariants every other part relies on.
 *
 * @param name normalized service name
 * @param kind probed over HTTP or pushed
 * @param url what to probe (HTTP only; null for PUSH)
 * @param method GET or HEAD
 * @param interval time between probe starts (also the expected push cadence)
 * @param timeout time allowed for the response headers after connecting
 * @param connectTimeout time allowed to connect (DNS, TCP, TLS)
 * @param acceptedStatus status codes that count as UP
 * @param failureThreshold consecutive DOWN that open an incident
 * @param recoveryThreshold consecutive UP that close it
 * @param followRedirects whether 3xx responses are followed
 * @param enabled disabled targets are neither probed nor accept pushes
 * @param heartbeat PUSH only, optional: how often the external checker promises to report; when no
 *     result arrives within it (plus the monitor's grace) the monitor records a DOWN result. Null:
 *     silence is not watched.
 */
public record TargetSpec(
    String name,
    TargetKind kind,
    URI url,
    String method,
    Duration interval,
    Duration timeout,
    Duration connectTimeout,
    StatusCodes acceptedStatus,
    int failureThreshold,
    int recoveryThreshold,
    boolean followRedirects,
    boolean enabled,
    Duration heartbeat) {

  public TargetSpec {
    if (!ServiceNames.isValid(name)) {
      throw new IllegalArgumentException("name '" + name + "' is not a normalized service name");
    }
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(interval, "interval");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(acceptedStatus, "acceptedStatus");
    if (kind == TargetKind.HTTP && url == null) {
      throw new IllegalArgumentException("an http target needs a url");
    }
    if (timeout.compareTo(interval) > 0) {
      throw new IllegalArgumentException("timeout must not exceed interval");
    }
    if (failureThreshold < 1 || recoveryThreshold < 1) {
      throw new IllegalArgumentException("thresholds must be at least 1");
    }
    if (heartbeat != null
        && (kind != TargetKind.PUSH || heartbeat.isNegative() || heartbeat.isZero())) {
      throw new IllegalArgumentException("only a push target has a heartbeat, and it is positive");
    }
  }

  /** A target without a heartbeat. */
  public TargetSpec(
      String name,
      TargetKind kind,
      URI url,
      String method,
      Duration interval,
      Duration timeout,
      Duration connectTimeout,
      StatusCodes acceptedStatus,
      int failureThreshold,
      int recoveryThreshold,
      boolean followRedirects,
      boolean enabled) {
    this(
        name,
        kind,
        url,
        method,
        interval,
        timeout,
        connectTimeout,
        acceptedStatus,
        failureThreshold,
        recoveryThreshold,
        followRedirects,
        enabled,
        null);
  }

  /** A push target with default thresholds, e.g. for tests and external checkers. */
  public static TargetSpec push(String name) {
    return new TargetSpec(
        name,
        TargetKind.PUSH,
        null,
        "GET",
        Duration.ofSeconds(60),
        Duration.ofSeconds(5),
        Duration.ofSeconds(5),
        StatusCodes.SUCCESS,
        TargetParser.DEFAULT_FAILURE_THRESHOLD,
        TargetParser.DEFAULT_RECOVERY_THRESHOLD,
        false,
        true);
  }

  /** A copy with other thresholds. */
  public TargetSpec withThresholds(int failures, int recoveries) {
    return new TargetSpec(
        name,
        kind,
        url,
        method,
        interval,
        timeout,
        connectTimeout,
        acceptedStatus,
        failures,
        recoveries,
        followRedirects,
        enabled,
        heartbeat);
  }

  /** A copy with another heartbeat (null: none). */
  public TargetSpec withHeartbeat(Duration every) {
    return new TargetSpec(
        name,
        kind,
        url,
        method,
        interval,
        timeout,
        connectTimeout,
        acceptedStatus,
        failureThreshold,
        recoveryThreshold,
        followRedirects,
        enabled,
        every);
  }
}
