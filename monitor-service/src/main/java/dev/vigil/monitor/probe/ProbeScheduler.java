package dev.vigil.monitor.probe;

import dev.vigil.kit.tracing.Tracing;
import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.alert.RecordQueue;
import dev.vigil.monitor.alert.Recorder;
import dev.vigil.monitor.targets.TargetSpec;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims due probes from the database in batches and runs each on a virtual thread: probe (no
 * transaction), then record the result and release the lease in one transaction through the {@link
 * Recorder}. Sized for thousands of targets per instance: one claim statement per batch, at most
 * {@code maxInFlight} probes at once, recording on a small connection pool.
 *
 * <p>Guarantees: a target is probed by at most one instance at a time (lease); a crashed instance's
 * targets are probed again once its leases expire; the next due time is computed from the previous
 * due time, so intervals do not drift. A result whose lease was lost is still offered to the
 * recorder, which rejects it if a newer result was recorded meanwhile: its place is the number its
 * claim took in the database, never a host's clock.
 *
 * <p>Each probe runs in a span of its own (a new trace), whose traceparent the result carries to
 * the outbox row of an event it decides.
 */
public final class ProbeScheduler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProbeScheduler.class);
  private static final Duration LEASE_MARGIN = Duration.ofSeconds(2);
  // Time kept free between the end of a probe's timeouts and the end of its lease.
  private static final Duration PROBE_SAFETY = Duration.ofMillis(500);
  private static final long MAX_CLAIM_BACKOFF_MS = 5_000;

  private final DataSource dataSource;
  private final Recorder recorder;
  private final RecordQueue queue;
  private final Prober prober;
  private final SchedulerSettings settings;
  private final Leases leases;
  private final Semaphore permits;
  private final ExecutorService probes = Executors.newVirtualThreadPerTaskExecutor();
  private final CountDownLatch stop = new CountDownLatch(1);
  private final Thread claimer;
  private final ScheduleLag scheduleLag;
  private final Tracer tracer;

  public ProbeScheduler(
      DataSource dataSource,
      Recorder recorder,
      Prober prober,
      SchedulerSettings settings,
      MeterRegistry registry) {
    this(dataSource, recorder, null, prober, settings, registry);
  }

  /**
   * @param queue where results are recorded in batches with other results finishing at the same
   *     time (group commit); null: each result in a transaction of its own
   */
  public ProbeScheduler(
      DataSource dataSource,
      Recorder recorder,
      RecordQueue queue,
      Prober prober,
      SchedulerSettings settings,
      MeterRegistry registry) {
    this(dataSource, recorder, queue, prober, settings, registry, Tracing.none());
  }

  /**
   * @param tracing where each probe's span is started
   */
  public ProbeScheduler(
      DataSource dataSource,
      Recorder recorder,
      RecordQueue queue,
      Prober prober,
      SchedulerSettings settings,
      MeterRegistry registry,
      Tracing tracing) {
    this.tracer = tracing.tracer();
    this.dataSource = dataSource;
    this.recorder = recorder;
    this.queue = queue;
    this.prober = prober;
    this.settings = settings;
    this.leases =
        new Leases(settings.instanceId(), settings.location(), settings.lease(), LEASE_MARGIN);
    this.permits = new Semaphore(settings.maxInFlight());
    this.claimer = Thread.ofPlatform().name("probe-claimer").daemon().unstarted(this::claimLoop);
    Gauge.builder(
            "vigil.monitor.probes.in.flight",
            permits,
            p -> settings.maxInFlight() - p.availablePermits())
        .description("Probes running on this instance")
        .register(registry);
    this.scheduleLag = new ScheduleLag(dataSource, registry);
  }

  public void start() {
    claimer.start();
    scheduleLag.start();
    LOG.info(
        "scheduler started instance={} location={} lease={} batch={} max_in_flight={}",
        settings.instanceId(),
        settings.location(),
        settings.lease(),
        settings.claimBatch(),
        settings.maxInFlight());
  }

  private void claimLoop() {
    int failures = 0;
    while (stop.getCount() > 0) {
      int claimed = 0;
      int wanted = Math.min(settings.claimBatch(), permits.availablePermits());
      long pause = settings.pollInterval().toMillis();
      if (wanted > 0) {
        try {
          claimed = claimAndDispatch(wanted);
          failures = 0;
        } catch (SQLException | RuntimeException e) {
          failures++;
          // Back off while the database is unreachable: poll interval doubled per failure, <= 5 s.
          pause = Math.min(MAX_CLAIM_BACKOFF_MS, pause << Math.min(failures, 10));
          LOG.warn(
              "claim failed instance={} attempt={} retry_in_ms={} error={}",
              settings.instanceId(),
              failures,
              pause,
              e.toString());
        }
      }
      if (claimed < wanted || wanted == 0) {
        try {
          stop.await(pause, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private int claimAndDispatch(int wanted) throws SQLException {
    List<Leases.Claim> claims;
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(true);
      claims = leases.claim(connection, wanted);
    }
    for (Leases.Claim claim : claims) {
      permits.acquireUninterruptibly();
      try {
        probes.execute(() -> run(claim));
      } catch (RuntimeException e) {
        permits.release();
        LOG.warn("probe not started target={} error={}", claim.target().name(), e.toString());
      }
    }
    return claims.size();
  }

  private void run(Leases.Claim claim) {
    try {
      TargetSpec target = claim.target();
      long mustEndBy =
          System.nanoTime()
              + target.connectTimeout().plus(target.timeout()).plus(PROBE_SAFETY).toNanos();
      if (mustEndBy > claim.leaseEndsNanos()) {
        // Started too late (overload): the lease could expire mid-probe and another instance
        // could probe the same target at the same time. Hand it back instead.
        LOG.warn(
            "probe skipped, lease too short target={} instance={}",
            target.name(),
            settings.instanceId());
        abandon(claim);
        return;
      }
      long started = System.nanoTime();
      Span span =
          tracer
              .spanBuilder("probe")
              .setNoParent()
              .setAttribute("vigil.service", target.name())
              .startSpan();
      try (Scope ignored = span.makeCurrent()) {
        probeAndRecord(claim, span, started);
      } finally {
        span.end();
      }
    } catch (RuntimeException e) {
      // The lease stays until it expires; the target is probed again then.
      LOG.warn("recording failed target={} error={}", claim.target().name(), e.toString());
    } finally {
      permits.release();
    }
  }

  private void probeAndRecord(Leases.Claim claim, Span span, long started) {
    TargetSpec target = claim.target();
    ProbeResult result =
        prober
            .probe(target)
            .withOrder(claim.order())
            .at(claim.location())
            .tracedBy(Tracing.traceParent(span).orElse(null));
    span.setAttribute("vigil.status", result.status().name());
    if (result.error() != null) {
      span.setStatus(StatusCode.ERROR, result.error());
    }
    long probed = System.nanoTime();
    Recorder.AlsoInTransaction release =
        (connection, outcome) -> {
          if (!leases.release(connection, claim)) {
            LOG.warn(
                "lease lost before release target={} instance={} probe_ms={} record_ms={}",
                target.name(),
                settings.instanceId(),
                (probed - started) / 1_000_000,
                (System.nanoTime() - probed) / 1_000_000);
          }
        };
    if (queue != null) {
      queue.record(result, release);
    } else {
      recorder.record(result, release);
    }
  }

  private void abandon(Leases.Claim claim) {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(true);
      leases.abandon(connection, claim);
    } catch (SQLException e) {
      LOG.warn(
          "claim not handed back, it expires instead target={} error={}",
          claim.target().name(),
          e.toString());
    }
  }

  /**
   * Stops claiming, waits up to the lease length for running probes, then hands every lease back so
   * another instance can take over at once.
   */
  @Override
  public void close() {
    stop.countDown();
    scheduleLag.close();
    try {
      claimer.join(settings.lease().toMillis());
      if (!permits.tryAcquire(
          settings.maxInFlight(), settings.lease().toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("probes still running at shutdown instance={}", settings.instanceId());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      probes.shutdownNow();
    }
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(true);
      int released = leases.releaseAll(connection);
      LOG.info("scheduler stopped instance={} leases_released={}", settings.instanceId(), released);
    } catch (SQLException e) {
      LOG.warn(
          "leases not released at shutdown, they expire instead instance={} error={}",
          settings.instanceId(),
          e.toString());
    }
  }
}
