package dev.vigil.relay.ops;

import dev.vigil.kit.metrics.ServiceMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The relay's Prometheus metrics: events relayed, batches, Kafka send latency, milliseconds behind
 * the source commit, slot lag in bytes, age of the last relayed event and whether this instance is
 * the active one.
 */
public final class RelayMetrics {
  private final ServiceMetrics metrics;
  private final Counter events;
  private final Counter batches;
  private final Counter walsenderRestarts;
  private final AtomicLong walsenderPid = new AtomicLong(0);
  private volatile boolean observingWalsender;
  private final Timer sendLatency;
  private final AtomicLong behindSourceMs = new AtomicLong(-1);
  private final AtomicLong slotLagBytes = new AtomicLong(-1);
  private final AtomicLong lastEventAtMs = new AtomicLong(0);

  public RelayMetrics(ServiceMetrics metrics, RelayStatus status) {
    this.metrics = metrics;
    MeterRegistry registry = metrics.registry();
    events =
        Counter.builder(metrics.name("events.relayed"))
            .description("Outbox events acknowledged by Kafka")
            .register(registry);
    batches =
        Counter.builder(metrics.name("batches"))
            .description("Engine batches fully acknowledged by Kafka")
            .register(registry);
    walsenderRestarts =
        Counter.builder(metrics.name("walsender.restarts"))
            .description(
                "Times the slot's walsender changed during a stream run of this instance: Debezium"
                    + " reconnected by itself after a retriable error (e.g. a broken replication"
                    + " connection), which the relay's state does not show; one reconnect may count"
                    + " twice (the restarted task replaces its connection once more after finding its"
                    + " position)")
            .register(registry);
    sendLatency =
        Timer.builder(metrics.name("kafka.send"))
            .description("Time from sending a batch to Kafka until every record is acknowledged")
            .publishPercentiles(0.5, 0.99)
            .register(registry);
    Gauge.builder(metrics.name("behind.source.ms"), behindSourceMs, AtomicLong::get)
        .description("Milliseconds between the source commit and Kafka's ack of the last event")
        .register(registry);
    Gauge.builder(metrics.name("slot.lag.bytes"), slotLagBytes, AtomicLong::get)
        .description("pg_current_wal_lsn() - confirmed_flush_lsn of the slot (-1 = unknown)")
        .register(registry);
    Gauge.builder(metrics.name("last.event.age.seconds"), lastEventAtMs, RelayMetrics::ageSeconds)
        .description("Seconds since the last event was relayed (-1 = none yet)")
        .register(registry);
    Gauge.builder(metrics.name("active"), status, s -> s.active() ? 1 : 0)
        .description("1 while this instance holds the lock and is the active relay, 0 on standby")
        .register(registry);
  }

  /** Records one batch acknowledged by Kafka. */
  public void batchRelayed(int eventCount, Duration sendTime, long lastSourceCommitMs) {
    batches.increment();
    sendLatency.record(sendTime);
    if (eventCount > 0) {
      events.increment(eventCount);
      long now = System.currentTimeMillis();
      lastEventAtMs.set(now);
      if (lastSourceCommitMs > 0) {
        behindSourceMs.set(Math.max(0, now - lastSourceCommitMs));
      }
    }
  }

  /** A new stream run began: the walsenders it gets while starting are not restarts. */
  public void streamStarted() {
    observingWalsender = false;
    walsenderPid.set(0);
  }

  /**
   * The run relayed its first batch. Debezium replaces its replication connection once while it
   * starts from stored offsets (after finding the stored position in the WAL), before any event;
   * only later replacements are restarts.
   */
  public void firstBatchRelayed() {
    observingWalsender = true;
  }

  /**
   * The walsender serving the slot at a sample ({@code 0} when none), while this instance streams.
   * Another pid than at the previous sample of the same run means the replication connection was
   * replaced.
   */
  public void walsenderSeen(long pid) {
    if (!observingWalsender || pid <= 0) {
      return;
    }
    long previous = walsenderPid.getAndSet(pid);
    if (previous > 0 && previous != pid) {
      walsenderRestarts.increment();
    }
  }

  public double walsenderRestarts() {
    return walsenderRestarts.count();
  }

  /** The walsender pid seen at the last sample of the current stream run (0 = none yet). */
  public long walsenderPid() {
    return walsenderPid.get();
  }

  public void slotLag(long bytes) {
    slotLagBytes.set(bytes);
  }

  public long slotLagBytes() {
    return slotLagBytes.get();
  }

  public double eventsRelayed() {
    return events.count();
  }

  /** The Prometheus text exposition. */
  public String scrape() {
    return metrics.scrape();
  }

  private static double ageSeconds(AtomicLong lastMs) {
    long last = lastMs.get();
    return last == 0 ? -1 : (System.currentTimeMillis() - last) / 1000.0;
  }
}
