package dev.vigil.monitor.targets;

import dev.vigil.contract.ServiceNames;
import dev.vigil.monitor.quiet.Window;
import java.math.BigDecimal;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One target as declared. Built by {@link TargetParser}, which reports problems with the field
 * name; the compact constructor re-checks the invariants every other part relies on.
 *
 * @param name normalized service name
 * @param kind probed over HTTP, TCP or DNS, or pushed
 * @param url what to probe ({@code http(s)://…}, {@code tcp://host:port}, {@code dns://name}; null
 *     for PUSH)
 * @param method the HTTP method (GET for the other kinds)
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
 * @param checks what the probe sends and demands beyond the status code ({@link Checks#NONE}: a
 *     plain status-code check)
 * @param remindEvery optional: a REMINDER every this long while an announced incident stays open
 *     and unacknowledged (null: none)
 * @param maintenance the target's recurring maintenance windows (empty: none)
 * @param locations where the target is probed from, each (target, location) by instances of that
 *     location with its own counters (empty: from one place, by any instance)
 * @param quorum how many fresh locations must be failing to open the incident (null: a majority of
 *     {@code locations}); only with locations
 * @param retryInterval the shorter interval used while failures count towards an incident or
 *     successes towards its recovery (null: the interval)
 * @param dependsOn the target's parents by name, at most {@link #MAX_PARENTS}, never itself: while
 *     one of them is down (its FAILED written) an incident of this target writes no FAILED (empty:
 *     none). A name that is not a target yet is allowed and holds nothing back.
 * @param dependencySettle how long after its last parent recovered this target's held-back FAILED
 *     waits (null: one interval)
 * @param slo optional: the objective, the percentage of checks (maintenance apart) that must be UP
 *     over {@code sloWindowDays}, above 0 and below {@link #MAX_SLO} (null: none)
 * @param sloWindowDays the days the objective is measured over, 1 to {@link #MAX_SLO_WINDOW_DAYS}
 *     (30 by default)
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
    Duration heartbeat,
    Checks checks,
    Duration remindEvery,
    List<Window> maintenance,
    List<String> locations,
    Integer quorum,
    Duration retryInterval,
    List<String> dependsOn,
    Duration dependencySettle,
    BigDecimal slo,
    int sloWindowDays) {

  /** Most locations one target may list. */
  public static final int MAX_LOCATIONS = 16;

  /** Most parents one target may list in {@code dependsOn}. */
  public static final int MAX_PARENTS = 32;

  /** The objective must stay below this percentage (exclusive): 100% leaves no error budget. */
  public static final BigDecimal MAX_SLO = BigDecimal.valueOf(100);

  /** The days an objective is measured over when the definition gives none. */
  public static final int DEFAULT_SLO_WINDOW_DAYS = 30;

  /** The longest window an objective is measured over, in days (what the rollups keep easily). */
  public static final int MAX_SLO_WINDOW_DAYS = 30;

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
    Objects.requireNonNull(checks, "checks");
    maintenance = maintenance == null ? List.of() : List.copyOf(maintenance);
    locations = locations == null ? List.of() : List.copyOf(locations);
    if (locations.size() > MAX_LOCATIONS
        || locations.stream().distinct().count() < locations.size()) {
      throw new IllegalArgumentException("at most " + MAX_LOCATIONS + " distinct locations");
    }
    for (String location : locations) {
      if (!dev.vigil.contract.AlertEvent.LOCATION_NAME.matcher(location).matches()) {
        throw new IllegalArgumentException("location '" + location + "' is not a location name");
      }
    }
    if (quorum != null && (quorum < 1 || quorum > locations.size())) {
      throw new IllegalArgumentException("quorum must be between 1 and the number of locations");
    }
    if (retryInterval != null
        && (retryInterval.toMillis() < 1000 || retryInterval.compareTo(interval) > 0)) {
      throw new IllegalArgumentException("retryInterval must be between 1s and the interval");
    }
    dependsOn = dependsOn == null ? List.of() : List.copyOf(dependsOn);
    if (dependsOn.size() > MAX_PARENTS
        || dependsOn.stream().distinct().count() < dependsOn.size()
        || dependsOn.contains(name)
        || !dependsOn.stream().allMatch(ServiceNames::isValid)) {
      throw new IllegalArgumentException(
          "dependsOn must list at most " + MAX_PARENTS + " distinct target names, not itself");
    }
    if (dependencySettle != null
        && (dependencySettle.isNegative() || dependencySettle.compareTo(Duration.ofDays(1)) > 0)) {
      throw new IllegalArgumentException("dependencySettle must be between 0 and 1d");
    }
    if (slo != null && (slo.signum() <= 0 || slo.compareTo(MAX_SLO) >= 0 || slo.scale() > 4)) {
      throw new IllegalArgumentException("slo must be above 0 and below 100, at most 4 decimals");
    }
    if (sloWindowDays < 1 || sloWindowDays > MAX_SLO_WINDOW_DAYS) {
      throw new IllegalArgumentException(
          "sloWindowDays must be between 1 and " + MAX_SLO_WINDOW_DAYS);
    }
    if (remindEvery != null && remindEvery.toMillis() < 1000) {
      throw new IllegalArgumentException("remindEvery must be at least 1s");
    }
    if (kind.probed() && url == null) {
      throw new IllegalArgumentException("a " + kind.column() + " target needs a url");
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

  /**
   * A builder for a target of this kind. Unset fields keep the defaults of a push target as an
   * external checker declares it: GET, every 60 s, 5 s timeouts, 2xx accepted, the parser's default
   * thresholds, no redirects, enabled, no heartbeat. {@link #build()} runs the same checks as the
   * canonical constructor.
   */
  public static Builder builder(String name, TargetKind kind) {
    return new Builder(name, kind);
  }

  /** A push target with default thresholds, e.g. for tests and external checkers. */
  public static TargetSpec push(String name) {
    return builder(name, TargetKind.PUSH).build();
  }

  /** A builder that starts from every field of this target. */
  public Builder toBuilder() {
    return new Builder(name, kind)
        .url(url)
        .method(method)
        .interval(interval)
        .timeout(timeout)
        .connectTimeout(connectTimeout)
        .acceptedStatus(acceptedStatus)
        .thresholds(failureThreshold, recoveryThreshold)
        .followRedirects(followRedirects)
        .enabled(enabled)
        .heartbeat(heartbeat)
        .checks(checks)
        .remindEvery(remindEvery)
        .maintenance(maintenance)
        .locations(locations, quorum)
        .retryInterval(retryInterval)
        .dependsOn(dependsOn, dependencySettle)
        .slo(slo, sloWindowDays);
  }

  /** Whether the target is probed from several locations (with a quorum). */
  public boolean located() {
    return !locations.isEmpty();
  }

  /** The quorum in force: the given one, or a majority of the locations (0 without locations). */
  public int effectiveQuorum() {
    return quorum != null ? quorum : locations.size() / 2 + (locations.isEmpty() ? 0 : 1);
  }

  /** The interval between re-checks while a failure or recovery is counting. */
  public Duration effectiveRetryInterval() {
    return retryInterval != null ? retryInterval : interval;
  }

  /**
   * How long a held-back FAILED waits after the last parent recovered: as given, or the interval.
   */
  public Duration effectiveDependencySettle() {
    return dependencySettle != null ? dependencySettle : interval;
  }

  /** A copy with other thresholds. */
  public TargetSpec withThresholds(int failures, int recoveries) {
    return toBuilder().thresholds(failures, recoveries).build();
  }

  /** A copy with another heartbeat (null: none). */
  public TargetSpec withHeartbeat(Duration every) {
    return toBuilder().heartbeat(every).build();
  }

  /** Collects the fields of a {@link TargetSpec}; see {@link TargetSpec#builder}. */
  public static final class Builder {
    private final String name;
    private final TargetKind kind;
    private URI url;
    private String method = "GET";
    private Duration interval = Duration.ofSeconds(60);
    private Duration timeout = Duration.ofSeconds(5);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private StatusCodes acceptedStatus = StatusCodes.SUCCESS;
    private int failureThreshold = TargetParser.DEFAULT_FAILURE_THRESHOLD;
    private int recoveryThreshold = TargetParser.DEFAULT_RECOVERY_THRESHOLD;
    private boolean followRedirects;
    private boolean enabled = true;
    private Duration heartbeat;
    private Checks checks = Checks.NONE;
    private Duration remindEvery;
    private List<Window> maintenance = List.of();
    private List<String> locations = List.of();
    private Integer quorum;
    private Duration retryInterval;
    private List<String> dependsOn = List.of();
    private Duration dependencySettle;
    private BigDecimal slo;
    private int sloWindowDays = DEFAULT_SLO_WINDOW_DAYS;

    private Builder(String name, TargetKind kind) {
      this.name = name;
      this.kind = kind;
    }

    public Builder url(URI url) {
      this.url = url;
      return this;
    }

    public Builder method(String method) {
      this.method = method;
      return this;
    }

    public Builder interval(Duration interval) {
      this.interval = interval;
      return this;
    }

    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
      return this;
    }

    public Builder acceptedStatus(StatusCodes acceptedStatus) {
      this.acceptedStatus = acceptedStatus;
      return this;
    }

    /** Consecutive DOWN results that open an incident and consecutive UP results that close it. */
    public Builder thresholds(int failures, int recoveries) {
      this.failureThreshold = failures;
      this.recoveryThreshold = recoveries;
      return this;
    }

    public Builder followRedirects(boolean followRedirects) {
      this.followRedirects = followRedirects;
      return this;
    }

    public Builder enabled(boolean enabled) {
      this.enabled = enabled;
      return this;
    }

    public Builder heartbeat(Duration heartbeat) {
      this.heartbeat = heartbeat;
      return this;
    }

    public Builder checks(Checks checks) {
      this.checks = checks;
      return this;
    }

    public Builder remindEvery(Duration remindEvery) {
      this.remindEvery = remindEvery;
      return this;
    }

    public Builder maintenance(List<Window> maintenance) {
      this.maintenance = maintenance;
      return this;
    }

    /** Where the target is probed from, and the quorum (null: a majority). */
    public Builder locations(List<String> locations, Integer quorum) {
      this.locations = locations;
      this.quorum = quorum;
      return this;
    }

    public Builder retryInterval(Duration retryInterval) {
      this.retryInterval = retryInterval;
      return this;
    }

    /** The parents, and the settle period after the last one recovered (null: one interval). */
    public Builder dependsOn(List<String> parents, Duration settle) {
      this.dependsOn = parents;
      this.dependencySettle = settle;
      return this;
    }

    /** The objective in percent (null: none) and the days it is measured over. */
    public Builder slo(BigDecimal slo, int windowDays) {
      this.slo = slo;
      this.sloWindowDays = windowDays;
      return this;
    }

    /** The target; throws IllegalArgumentException or NullPointerException as the record does. */
    public TargetSpec build() {
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
          heartbeat,
          checks,
          remindEvery,
          maintenance,
          locations,
          quorum,
          retryInterval,
          dependsOn,
          dependencySettle,
          slo,
          sloWindowDays);
    }
  }
}
