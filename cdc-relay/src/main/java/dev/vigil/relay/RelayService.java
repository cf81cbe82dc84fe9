package dev.vigil.relay;

import static dev.vigil.relay.RelayConfig.LAG_SAMPLE_INTERVAL;
import static dev.vigil.relay.RelayConfig.PUBLICATION;
import static dev.vigil.relay.RelayConfig.SLOT;

import dev.vigil.relay.ops.OpsServer;
import dev.vigil.relay.ops.RelayMetrics;
import dev.vigil.relay.ops.RelayStatus;
import dev.vigil.relay.ops.SlotLagMonitor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running relay: HTTP endpoints, slot lag sampling and the supervisor that streams the outbox
 * to Kafka while this instance holds the lock (a hot standby otherwise).
 *
 * <p>Delivery guarantees: every committed outbox row reaches the topic at least once, keyed by
 * service, in commit order per service; offsets are stored only after Kafka acknowledged the
 * records, so a crash repeats at most the unacknowledged tail.
 */
public final class RelayService implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RelayService.class);

  private final RelayStatus status;
  private final RelayMetrics metrics;
  private final OpsServer http;
  private final SlotLagMonitor lagMonitor;
  private final Supervisor supervisor;
  private final Thread supervisorThread;

  private RelayService(
      RelayStatus status,
      RelayMetrics metrics,
      OpsServer http,
      SlotLagMonitor lagMonitor,
      Supervisor supervisor,
      Thread supervisorThread) {
    this.status = status;
    this.metrics = metrics;
    this.http = http;
    this.lagMonitor = lagMonitor;
    this.supervisor = supervisor;
    this.supervisorThread = supervisorThread;
  }

  /** Starts every part; returns at once, as a standby until the lock is taken. */
  public static RelayService start(RelayConfig config) {
    RelayStatus status = new RelayStatus(config.instanceId());
    RelayMetrics metrics = new RelayMetrics(status);
    OpsServer http = OpsServer.start(config.httpPort(), status, metrics);
    SlotLagMonitor lagMonitor =
        new SlotLagMonitor(
            config.dbUrl(),
            config.dbUser(),
            config.dbPassword(),
            config.get(SLOT),
            metrics,
            () -> status.snapshot().state() == RelayStatus.State.STREAMING);
    lagMonitor.start(config.get(LAG_SAMPLE_INTERVAL));
    Supervisor supervisor = new Supervisor(config, status, metrics);
    Thread thread = Thread.ofPlatform().name("relay-supervisor").start(supervisor);
    log.info(
        "relay started instance={} slot={} publication={} topic={} httpPort={}",
        config.instanceId(),
        config.get(SLOT),
        config.get(PUBLICATION),
        config.topic(),
        http.port());
    return new RelayService(status, metrics, http, lagMonitor, supervisor, thread);
  }

  /** The HTTP port actually bound. */
  public int httpPort() {
    return http.port();
  }

  /** The current state: streaming, standby or failing (with the reason). */
  public RelayStatus.Snapshot status() {
    return status.snapshot();
  }

  /** Metrics of this instance. */
  public RelayMetrics metrics() {
    return metrics;
  }

  /**
   * Completes when the relay stopped for good: normally after {@link #close()}, exceptionally with
   * a {@link dev.vigil.relay.stream.SlotMissingException} when it refused to start.
   */
  public CompletableFuture<Void> terminated() {
    return supervisor.terminated();
  }

  /**
   * Stops in reverse order: the engine finishes its in-flight batch and stores offsets, the lock is
   * released, then slot sampling and HTTP stop.
   */
  @Override
  public void close() {
    RuntimeException failure = null;
    supervisor.stop();
    try {
      supervisorThread.join(TimeUnit.SECONDS.toMillis(60));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      lagMonitor.close();
    } catch (RuntimeException e) {
      failure = e;
    }
    try {
      http.close();
    } catch (RuntimeException e) {
      if (failure == null) {
        failure = e;
      } else {
        failure.addSuppressed(e);
      }
    }
    log.info("relay stopped instance={}", status.instanceId());
    if (failure != null) {
      throw failure;
    }
  }
}
