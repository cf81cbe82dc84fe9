package dev.vigil.monitor.probe;

import dev.vigil.kit.db.DatabaseException;
import dev.vigil.kit.tracing.Tracing;
import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.alert.Recorder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches push targets that declare a heartbeat: when no result arrived within the heartbeat plus
 * the grace, records a DOWN result ("no result for …") through the {@link Recorder}, so the normal
 * thresholds and events apply. While the target stays silent, each further heartbeat is one more
 * DOWN (the grace is added once, not per heartbeat), so FAILED comes after grace + threshold
 * heartbeats.
 *
 * <p>Guarantees: the deadline lives in the database ({@code probe_schedule.next_due_at}, moved by
 * every recorded result of the target) and is compared with the database's clock. An overdue target
 * is claimed with {@code FOR UPDATE SKIP LOCKED} and a lease, like a probe; the DOWN is recorded in
 * the same transaction that releases the lease, and rolled back if the lease was lost, so two
 * instances never record the same missed heartbeat twice. A result pushed after the claim is
 * numbered after it, so the recorder rejects the then stale DOWN; a result pushed before the claim
 * but committed after it (its number is older than the claim's) is seen under the service's row
 * lock, and the DOWN is dropped. A watcher only reports a target once it has itself watched for a
 * heartbeat plus the grace: pushers whose results were refused while every monitor was down get a
 * full heartbeat after the start before they are called silent.
 *
 * <p>Each missed heartbeat is a span of its own ({@code missed-heartbeat}, a new trace: no probe or
 * push produced the result), whose traceparent the DOWN carries to the outbox row of a FAILED it
 * decides, as a probe's span does.
 */
public final class MissedHeartbeats implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MissedHeartbeats.class);
  private static final long MAX_BACKOFF_MS = 5_000;

  // Overdue: past the deadline plus the grace, and this watcher has itself watched for a heartbeat
  // (its start, the database's time, counts as a deadline).
  private static final String CLAIM =
      ScheduleClaims.sql(
          """
          t.enabled and t.kind = 'push' and t.heartbeat_ms is not null
                 and greatest(s.next_due_at,
                              ?::timestamptz + make_interval(secs => t.heartbeat_ms / 1000.0))
                     <= now() - make_interval(secs => ?)""",
          "make_interval(secs => ?)",
          """
          t.name, t.heartbeat_ms,
                    floor(extract(epoch from (now() - s.next_due_at)) * 1000)::bigint + t.heartbeat_ms,
                    nextval('result_order'), s.next_due_at""");

  // Run after the DOWN was written (under the service's row lock, which a push holds from taking
  // its number to its commit): a result pushed since the deadline was set means the deadline had
  // moved, whatever the order numbers say.
  private static final String PUSHED_SINCE =
      """
      select exists (select 1 from check_history
                      where service = ? and source = 'push'
                        and recorded_at > ?::timestamptz - make_interval(secs => ? / 1000.0))
      """;

  // The recorder moved the deadline one heartbeat past this DOWN; the next missed heartbeat is one
  // heartbeat after the one just recorded (not one heartbeat plus the grace), or one heartbeat from
  // now after a long gap (one DOWN, not a burst).
  private static final String RELEASE_AFTER_DOWN =
      """
      update probe_schedule
         set lease_owner = null, lease_token = null, lease_until = null,
             next_due_at = greatest(?::timestamptz + make_interval(secs => ? / 1000.0),
                                    clock_timestamp() + make_interval(secs => ? / 1000.0)
                                                      - make_interval(secs => ?))
       where target = ? and lease_token = ?
      """;

  private static final String RELEASE =
      """
      update probe_schedule set lease_owner = null, lease_token = null, lease_until = null
       where target = ? and lease_token = ?
      """;

  private static final String NOW = "select now()";

  /** A claimed overdue target; {@code deadline} is the one it was claimed on. */
  record Claim(
      String target,
      Duration heartbeat,
      Duration silence,
      UUID token,
      long order,
      Timestamp deadline) {}

  private final DataSource dataSource;
  private final Recorder recorder;
  private final SchedulerSettings settings;
  private final Duration grace;
  private final Tracer tracer;
  private final CountDownLatch stop = new CountDownLatch(1);
  private final Thread watcher;
  private volatile Timestamp watchingSince;

  public MissedHeartbeats(
      DataSource dataSource, Recorder recorder, SchedulerSettings settings, Duration grace) {
    this(dataSource, recorder, settings, grace, Tracing.none());
  }

  /**
   * @param tracing where the span of each missed heartbeat is started (a new trace), whose
   *     traceparent is written with the outbox row of an event the DOWN decides
   */
  public MissedHeartbeats(
      DataSource dataSource,
      Recorder recorder,
      SchedulerSettings settings,
      Duration grace,
      Tracing tracing) {
    if (grace.isNegative()) {
      throw new IllegalArgumentException("grace must not be negative");
    }
    this.dataSource = dataSource;
    this.recorder = recorder;
    this.settings = settings;
    this.grace = grace;
    this.tracer = tracing.tracer();
    this.watcher = Thread.ofPlatform().name("heartbeat-watch").daemon().unstarted(this::loop);
  }

  public void start() {
    try {
      watchingSince = databaseNow();
    } catch (SQLException e) {
      throw new DatabaseException("reading the database's time for the heartbeat watch", e);
    }
    watcher.start();
    LOG.info("heartbeat watch started instance={} grace={}", settings.instanceId(), grace);
  }

  private void loop() {
    int failures = 0;
    while (stop.getCount() > 0) {
      long pause = settings.pollInterval().toMillis();
      int claimed = 0;
      try {
        claimed = runOnce();
        failures = 0;
      } catch (SQLException | RuntimeException e) {
        failures++;
        pause = Math.min(MAX_BACKOFF_MS, pause << Math.min(failures, 10));
        LOG.warn(
            "heartbeat check failed instance={} attempt={} retry_in_ms={} error={}",
            settings.instanceId(),
            failures,
            pause,
            e.toString());
      }
      if (claimed < settings.claimBatch()) {
        try {
          stop.await(pause, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /**
   * Claims overdue push targets and records a DOWN for each.
   *
   * @return how many were claimed
   */
  int runOnce() throws SQLException {
    if (watchingSince == null) {
      watchingSince = databaseNow();
    }
    List<Claim> claims = claim();
    for (Claim claim : claims) {
      record(claim);
    }
    return claims.size();
  }

  private List<Claim> claim() throws SQLException {
    UUID token = UUID.randomUUID();
    List<Claim> claims = new ArrayList<>();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(CLAIM)) {
      connection.setAutoCommit(true);
      statement.setTimestamp(1, watchingSince);
      statement.setDouble(2, grace.toMillis() / 1000.0);
      statement.setInt(3, settings.claimBatch());
      statement.setString(4, settings.instanceId());
      statement.setObject(5, token);
      statement.setDouble(6, settings.lease().toMillis() / 1000.0);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          claims.add(
              new Claim(
                  rs.getString(1),
                  Duration.ofMillis(rs.getInt(2)),
                  Duration.ofMillis(rs.getLong(3)),
                  token,
                  rs.getLong(4),
                  rs.getTimestamp(5)));
        }
      }
    }
    return claims;
  }

  private void record(Claim claim) {
    String error =
        "no result for "
            + Durations.human(claim.silence())
            + " (heartbeat "
            + Durations.human(claim.heartbeat())
            + ")";
    Span span =
        tracer
            .spanBuilder("missed-heartbeat")
            .setNoParent()
            .setAttribute("vigil.service", claim.target())
            .setAttribute("vigil.status", "DOWN")
            .startSpan();
    span.setStatus(StatusCode.ERROR, error);
    try {
      recordTraced(claim, error, span);
    } finally {
      span.end();
    }
  }

  private void recordTraced(Claim claim, String error, Span span) {
    try {
      var outcome =
          recorder.record(
              ProbeResult.missedHeartbeat(claim.target(), error, claim.order())
                  .tracedBy(Tracing.traceParent(span).orElse(null)),
              (connection, recorded) -> {
                if (recorded.accepted() && pushedSince(connection, claim)) {
                  throw new HeartbeatArrivedException(claim.target());
                }
                release(connection, claim, recorded.accepted());
              });
      if (outcome.accepted()) {
        LOG.info(
            "missed heartbeat recorded service={} instance={} silence_ms={}",
            claim.target(),
            settings.instanceId(),
            claim.silence().toMillis());
      }
    } catch (HeartbeatArrivedException e) {
      LOG.info(
          "missed heartbeat dropped, a result arrived meanwhile service={} instance={}",
          claim.target(),
          settings.instanceId());
      try (Connection connection = dataSource.getConnection()) {
        connection.setAutoCommit(true);
        release(connection, claim, false);
      } catch (SQLException | RuntimeException releaseFailure) {
        // The lease expires by itself; the target is checked again then.
        LOG.warn(
            "heartbeat lease not released service={} error={}",
            claim.target(),
            releaseFailure.toString());
      }
    } catch (LeaseLostException e) {
      LOG.warn(
          "missed heartbeat not recorded, lease lost service={} instance={}",
          claim.target(),
          settings.instanceId());
    } catch (RuntimeException e) {
      // The lease stays until it expires; the target is checked again then.
      LOG.warn("missed heartbeat not recorded service={} error={}", claim.target(), e.toString());
    }
  }

  private static boolean pushedSince(Connection connection, Claim claim) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(PUSHED_SINCE)) {
      statement.setString(1, claim.target());
      statement.setTimestamp(2, claim.deadline());
      statement.setLong(3, claim.heartbeat().toMillis());
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  /** Frees the claim's lease; after a recorded DOWN also sets the next deadline. */
  private void release(Connection connection, Claim claim, boolean downRecorded)
      throws SQLException {
    String sql = downRecorded ? RELEASE_AFTER_DOWN : RELEASE;
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      int i = 1;
      if (downRecorded) {
        statement.setTimestamp(i++, claim.deadline());
        statement.setLong(i++, claim.heartbeat().toMillis());
        statement.setLong(i++, claim.heartbeat().toMillis());
        statement.setDouble(i++, grace.toMillis() / 1000.0);
      }
      statement.setString(i++, claim.target());
      statement.setObject(i, claim.token());
      if (statement.executeUpdate() != 1) {
        throw new LeaseLostException(claim.target());
      }
    }
  }

  /**
   * Sets when this watcher started watching (the database's time); {@link #start()} sets it to now.
   * For tests of a watcher that has been running for a while.
   */
  MissedHeartbeats watchingSince(Timestamp since) {
    this.watchingSince = since;
    return this;
  }

  private Timestamp databaseNow() throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(NOW);
        ResultSet rs = statement.executeQuery()) {
      rs.next();
      return rs.getTimestamp(1);
    }
  }

  /** Stops the watch; a claim in progress finishes or its lease expires. */
  @Override
  public void close() {
    stop.countDown();
    try {
      watcher.join(settings.lease().toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    LOG.info("heartbeat watch stopped instance={}", settings.instanceId());
  }

  /** A result arrived between the claim and the DOWN; the DOWN is rolled back. */
  private static final class HeartbeatArrivedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    HeartbeatArrivedException(String target) {
      super("a result of " + target + " arrived after the claim");
    }
  }

  /** The claim's lease was taken over; the recording is rolled back. */
  private static final class LeaseLostException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    LeaseLostException(String target) {
      super("lease on " + target + " lost");
    }
  }
}
