package dev.vigil.relay;

import static dev.vigil.relay.config.RelayConfig.LAG_SAMPLE_INTERVAL;
import static dev.vigil.relay.config.RelayConfig.PUBLICATION;
import static dev.vigil.relay.config.RelayConfig.SLOT;

import dev.vigil.kit.lifecycle.Closer;
import dev.vigil.kit.metrics.ServiceMetrics;
import dev.vigil.relay.api.HttpApi;
import dev.vigil.relay.config.RelayConfig;
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
  private static final Logger LOG = LoggerFactory.getLogger(RelayService.class);

  private final Closer parts;
  private final RelayStatus status;
  private final RelayMetrics metrics;
  private final HttpApi http;
  private final Supervisor supervisor;

  private RelayService(
      Closer parts, RelayStatus status, RelayMetrics metrics, HttpApi http, Supervisor supervisor) {
    this.parts = parts;
    this.status = status;
    this.metrics = metrics;
    this.http = http;
    this.supervisor = supervisor;
  }

  /** Starts every part; returns at once, as a standby until the lock is taken. */
  public static RelayService start(RelayConfig config) {
    Closer parts = new Closer("relay");
    try {
      // Registered first, so it runs last: after every part has stopped.
      parts.add("stopped log", () -> LOG.info("relay stopped instance={}", config.instanceId()));
      RelayStatus status = new RelayStatus(config.instanceId());
      ServiceMetrics serviceMetrics = parts.add("metrics", ServiceMetrics.create("relay"));
      RelayMetrics metrics = new RelayMetrics(serviceMetrics, status);
      HttpApi http = parts.add(HttpApi.start(config.httpPort(), status, metrics, serviceMetrics));
      SlotLagMonitor lagMonitor =
          new SlotLagMonitor(
              config.dbUrl(),
              config.connectionProperties(),
              config.get(SLOT),
              metrics,
              () -> status.snapshot().state() == RelayStatus.State.STREAMING);
      lagMonitor.start(config.get(LAG_SAMPLE_INTERVAL));
      parts.add(lagMonitor);
      Supervisor supervisor = new Supervisor(config, status, metrics);
      Thread thread = Thread.ofPlatform().name("relay-supervisor").start(supervisor);
      parts.add("supervisor", () -> stop(supervisor, thread));
      LOG.info(
          "relay started instance={} slot={} publication={} topic={} http_port={}",
          config.instanceId(),
          config.get(SLOT),
          config.get(PUBLICATION),
          config.topic(),
          http.port());
      return new RelayService(parts, status, metrics, http, supervisor);
    } catch (RuntimeException e) {
      throw parts.closeAfter(e);
    } catch (Error e) {
      throw parts.closeAfter(e);
    }
  }

  /** The engine finishes its in-flight batch and stores offsets, then the lock is released. */
  private static void stop(Supervisor supervisor, Thread thread) throws InterruptedException {
    supervisor.stop();
    thread.join(TimeUnit.SECONDS.toMillis(60));
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
   * released, then slot sampling, HTTP and the metrics stop. Every part is stopped even if one
   * fails; the first failure is thrown.
   */
  @Override
  public void close() {
    parts.close();
  }
}
