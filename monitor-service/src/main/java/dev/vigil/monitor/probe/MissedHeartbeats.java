package dev.vigil.monitor.probe;

import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.alert.Recorder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
 * thresholds and events apply.
 *
 * <p>Guarantees: the deadline lives in the database ({@code probe_schedule.next_due_at}, moved by
 * every recorded result of the target) and is compared with the database's clock. An overdue target
 * is claimed with {@code FOR UPDATE SKIP LOCKED} and a lease, like a probe; the DOWN is recorded in
 * the same transaction that releases the lease, and rolled back if the lease was lost, so two
 * instances never record the same missed heartbeat twice. A result pushed after the claim is
 * numbered after it, so the recorder rejects the then stale DOWN.
 */
public final class MissedHeartbeats implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MissedHeartbeats.class);
  private static final long MAX_BACKOFF_MS = 5_000;

  private static final String CLAIM =
      ScheduleClaims.sql(
          """
          t.enabled and t.kind = 'push' and t.heartbeat_ms is not null
                 and s.next_due_at <= now() - make_interval(secs => ?)""",
          "make_interval(secs => ?)",
          """
          t.name, t.heartbeat_ms,
                    floor(extract(epoch from (now() - s.next_due_at)) * 1000)::bigint + t.heartbeat_ms,
                    nextval('result_order')""");

  private static final String RELEASE =
      """
      update probe_schedule set lease_owner = null, lease_token = null, lease_until = null
       where target = ? and lease_token = ?
      """;

  /** A claimed overdue target. */
  record Claim(String target, Duration heartbeat, Duration silence, UUID token, long order) {}

  private final DataSource dataSource;
  private final Recorder recorder;
  private final SchedulerSettings settings;
  private final Duration grace;
  private final CountDownLatch stop = new CountDownLatch(1);
  private final Thread watcher;

  public MissedHeartbeats(
      DataSource dataSource, Recorder recorder, SchedulerSettings settings, Duration grace) {
    if (grace.isNegative()) {
      throw new IllegalArgumentException("grace must not be negative");
    }
    this.dataSource = dataSource;
    this.recorder = recorder;
    this.settings = settings;
    this.grace = grace;
    this.watcher = Thread.ofPlatform().name("heartbeat-watch").daemon().unstarted(this::loop);
  }

  public void start() {
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
      statement.setDouble(1, grace.toMillis() / 1000.0);
      statement.setInt(2, settings.claimBatch());
      statement.setString(3, settings.instanceId());
      statement.setObject(4, token);
      statement.setDouble(5, settings.lease().toMillis() / 1000.0);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          claims.add(
              new Claim(
                  rs.getString(1),
                  Duration.ofMillis(rs.getInt(2)),
                  Duration.ofMillis(rs.getLong(3)),
                  token,
                  rs.getLong(4)));
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
    try {
      var outcome =
          recorder.record(
              ProbeResult.missedHeartbeat(claim.target(), error, claim.order()),
              (connection, recorded) -> {
                try (PreparedStatement statement = connection.prepareStatement(RELEASE)) {
                  statement.setString(1, claim.target());
                  statement.setObject(2, claim.token());
                  if (statement.executeUpdate() != 1) {
                    throw new LeaseLostException(claim.target());
                  }
                }
              });
      if (outcome.accepted()) {
        LOG.info(
            "missed heartbeat recorded service={} instance={} silence_ms={}",
            claim.target(),
            settings.instanceId(),
            claim.silence().toMillis());
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

  /** The claim's lease was taken over; the recording is rolled back. */
  private static final class LeaseLostException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    LeaseLostException(String target) {
      super("lease on " + target + " lost");
    }
  }
}
