package dev.vigil.notifier.intake;

import dev.vigil.kit.ClientFailures;
import dev.vigil.kit.SafeText;
import dev.vigil.kit.backoff.ExponentialBackoff;
import dev.vigil.kit.db.Database;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes the alert topic in a consumer group with manual commits.
 *
 * <p>Guarantees: a poll batch is stored in one database transaction (receipts, conflicts, rejected
 * records) and only then are its offsets committed. A crash between the two re-delivers the batch;
 * receipts are keyed by event id, so the re-delivery adds nothing. No record can stop intake: each
 * becomes a receipt or is parked with a sanitised reason (see {@link Checked}, {@link
 * ReceiptStore}). If the database is unavailable the batch is rewound and retried with backoff, so
 * no record is skipped. Any failure of the consumer itself (poll, commit, rebalance) closes it and,
 * after a backoff, starts a new one from the committed offsets: the intake thread only ends when
 * the notifier stops. {@link #state()} (for /health) and the {@code vigil_notifier_intake_down}
 * gauge say why while intake is down.
 */
public final class ReceiptConsumer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReceiptConsumer.class);
  private static final Duration FIRST_RESTART = Duration.ofMillis(200);
  private static final Duration MAX_RESTART = Duration.ofSeconds(10);

  /**
   * Where and how to consume.
   *
   * @param startLookBack where a partition without committed offset starts (see {@link
   *     StartPosition})
   * @param clientProperties security and pass-through properties, added last (see {@link
   *     dev.vigil.kit.kafka.KafkaClientProperties})
   * @param channels the delivery channels of a service's events (one receipt row each)
   */
  public record Options(
      String bootstrapServers,
      String topic,
      String groupId,
      Duration startLookBack,
      Map<String, Object> clientProperties,
      Function<String, List<String>> channels) {
    /** Without security properties (a PLAINTEXT broker). */
    public Options(String bootstrapServers, String topic, String groupId, Duration startLookBack) {
      this(bootstrapServers, topic, groupId, startLookBack, Map.of());
    }

    /** Every event to the default signed-webhook channel. */
    public Options(
        String bootstrapServers,
        String topic,
        String groupId,
        Duration startLookBack,
        Map<String, Object> clientProperties) {
      this(
          bootstrapServers,
          topic,
          groupId,
          startLookBack,
          clientProperties,
          ReceiptStore.DEFAULT_CHANNEL);
    }

    public Options {
      clientProperties = Map.copyOf(clientProperties);
      Objects.requireNonNull(channels, "channels is missing");
      Objects.requireNonNull(bootstrapServers, "bootstrapServers is missing");
      Objects.requireNonNull(topic, "topic is missing");
      Objects.requireNonNull(groupId, "groupId is missing");
      if (startLookBack == null || startLookBack.isNegative()) {
        throw new IllegalArgumentException("startLookBack must be >= 0, was " + startLookBack);
      }
    }

    /** The consumer's properties: manual commits, byte arrays, fast failover of a dead member. */
    Properties consumerProperties() {
      Properties props = new Properties();
      props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
      props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
      props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      // Only for a committed offset that fell out of retention; a partition with no committed
      // offset starts at the look-back (StartPosition), never at the earliest record.
      props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
      // The relay commits each batch as one Kafka transaction: read only committed ones, so a
      // batch a killed or fenced relay left open or aborted is never taken for an alert.
      props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      // A crashed instance's partitions move to the survivors after 10 s instead of the default
      // 45 s: alerts wait less after a kill -9 (the fault drill measured 40-85 s intake stalls with
      // the default).
      props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
      props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "3000");
      props.put(ConsumerConfig.CLIENT_ID_CONFIG, groupId + "-intake");
      props.putAll(clientProperties);
      return props;
    }
  }

  private final Supplier<Consumer<byte[], byte[]>> consumers;
  private final ReceiptStore store;
  private final MeterRegistry registry;
  private final Options options;
  private final Runnable onNewReceipts;
  private final Counter received;
  private final Counter duplicates;
  private final Counter conflicts;
  private final Counter rejected;
  private final Counter restarts;
  private final Counter skippedOnStart;
  private final SkippedKinds skippedKinds;
  private final Thread thread;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean running = true;
  private volatile IntakeState state = IntakeState.UP;
  private volatile Consumer<byte[], byte[]> current;
  private final Duration contactBound;
  private volatile BrokerContact contact;

  /**
   * @param onNewReceipts called after a batch added receipts (wakes idle delivery workers)
   */
  public ReceiptConsumer(
      Database database, Options options, MeterRegistry registry, Runnable onNewReceipts) {
    this(database, options, kafkaConsumers(options), registry, onNewReceipts);
  }

  /** New Kafka consumers with {@code options}' properties, reading keys and values as bytes. */
  static Supplier<Consumer<byte[], byte[]>> kafkaConsumers(Options options) {
    return () ->
        new KafkaConsumer<>(
            options.consumerProperties(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** With a consumer factory, so a test can hand in a consumer that fails. */
  ReceiptConsumer(
      Database database,
      Options options,
      Supplier<Consumer<byte[], byte[]>> consumers,
      MeterRegistry registry,
      Runnable onNewReceipts) {
    this(database, options, consumers, registry, onNewReceipts, BrokerContact.BOUND);
  }

  /**
   * With a consumer factory and the bound after which no broker connection counts as intake down
   * ({@link BrokerContact}).
   */
  ReceiptConsumer(
      Database database,
      Options options,
      Supplier<Consumer<byte[], byte[]>> consumers,
      MeterRegistry registry,
      Runnable onNewReceipts,
      Duration contactBound) {
    this.contactBound = contactBound;
    this.consumers = consumers;
    this.registry = registry;
    this.store = new ReceiptStore(database, options.channels());
    this.skippedKinds = new SkippedKinds(registry, System::nanoTime);
    this.options = options;
    this.onNewReceipts = onNewReceipts;
    this.received = registry.counter("vigil.notifier.receipts");
    this.duplicates = registry.counter("vigil.notifier.duplicates");
    this.conflicts = registry.counter("vigil.notifier.conflicts");
    this.rejected = registry.counter("vigil.notifier.rejected");
    this.restarts =
        Counter.builder("vigil.notifier.intake.restarts")
            .description("Kafka consumers of the intake closed after a failure and started again")
            .register(registry);
    this.skippedOnStart =
        Counter.builder("vigil.notifier.intake.lookback.skipped")
            .description(
                "Records before the start look-back, skipped on partitions without committed"
                    + " offset")
            .register(registry);
    for (IntakeState.Cause cause : IntakeState.Cause.values()) {
      Gauge.builder("vigil.notifier.intake.down", () -> state.cause() == cause ? 1 : 0)
          .description("1 while intake is down for this cause")
          .tag("cause", cause.name().toLowerCase(Locale.ROOT))
          .register(registry);
    }
    this.thread = new Thread(this::supervise, "notifier-intake");
  }

  public void start() {
    thread.start();
  }

  /** False while intake is down (see {@link #state()} for why). */
  public boolean healthy() {
    return state.up() && thread.isAlive();
  }

  /** Why intake is down (for /health), or null while it works. */
  public String problem() {
    IntakeState now = state();
    if (healthy()) {
      return null;
    }
    return now.reason() == null ? "intake is down" : now.cause() + ": " + now.reason();
  }

  /** What intake is doing, and why it is down if it is. */
  public IntakeState state() {
    return thread.isAlive() || !running
        ? state
        : IntakeState.down(IntakeState.Cause.STOPPED, "intake thread ended");
  }

  /** Runs consumers one after another until closed: a failed one is replaced after a backoff. */
  private void supervise() {
    ExponentialBackoff backoff = new ExponentialBackoff(FIRST_RESTART, MAX_RESTART);
    while (running) {
      long started = System.nanoTime();
      try {
        runOneConsumer();
      } catch (RuntimeException | Error e) {
        if (!running) {
          break;
        }
        if (Duration.ofNanos(System.nanoTime() - started).compareTo(Duration.ofMinutes(1)) > 0) {
          backoff.reset();
        }
        Duration pause = backoff.next();
        state = IntakeState.down(IntakeState.Cause.KAFKA, ClientFailures.describe(e));
        restarts.increment();
        LOG.error(
            "intake consumer failed restart_in_ms={} error=\"{}\"",
            pause.toMillis(),
            SafeText.text(ClientFailures.describe(e), SafeText.MAX_REASON),
            e);
        if (!pause(pause)) {
          break;
        }
      }
    }
    state = IntakeState.down(IntakeState.Cause.STOPPED, "intake stopped");
  }

  private void runOneConsumer() {
    Consumer<byte[], byte[]> consumer = consumers.get();
    current = consumer;
    contact = new BrokerContact(() -> connections(consumer), System::nanoTime, contactBound);
    // The Kafka client's own metrics (fetch lag, rates, …) for as long as this consumer lives.
    KafkaClientMetrics clientMetrics = new KafkaClientMetrics(consumer);
    clientMetrics.bindTo(registry);
    try {
      if (!running) {
        return;
      }
      consumer.subscribe(
          List.of(options.topic()),
          new StartPosition(
              consumer,
              options.startLookBack(),
              Clock.systemUTC(),
              skippedOnStart,
              partition -> store.lastStoredOffset(partition.topic(), partition.partition())));
      new IntakeSession(consumer, store, new Sink(), () -> running).run();
    } finally {
      current = null;
      clientMetrics.close();
      try {
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
      } catch (RuntimeException e) {
        LOG.warn("intake consumer close failed error=\"{}\"", e.toString());
      }
    }
  }

  /** The consumer's open connections to brokers (its network client's {@code connection-count}). */
  private static double connections(Consumer<byte[], byte[]> consumer) {
    for (Map.Entry<MetricName, ? extends Metric> e : consumer.metrics().entrySet()) {
      if (e.getKey().name().equals("connection-count")
          && e.getKey().group().equals("consumer-metrics")
          && e.getValue().metricValue() instanceof Double count) {
        return count;
      }
    }
    // A client without the metric (a test's stand-in) cannot tell: count it as in touch.
    return 1;
  }

  private boolean pause(Duration delay) {
    try {
      return !stopped.await(delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
      return false;
    }
  }

  private final class Sink implements IntakeSession.Sink {
    @Override
    public void stored(ReceiptStore.Stored stored, List<Checked.Rejected> parked) {
      received.increment(stored.inserted());
      duplicates.increment(stored.duplicates());
      conflicts.increment(stored.conflicts());
      rejected.increment(stored.rejected());
      for (Checked.Rejected r : parked) {
        LOG.warn(
            "record rejected topic={} partition={} offset={} field={} reason=\"{}\"",
            r.topic(),
            r.partition(),
            r.offset(),
            r.field(),
            r.reason());
      }
      if (stored.conflicts() > 0) {
        LOG.warn(
            "receipt conflict count={} (same event id, different payload)", stored.conflicts());
      }
      if (stored.inserted() > 0) {
        onNewReceipts.run();
      }
    }

    @Override
    public void skipped(List<Checked.Skipped> skipped) {
      skippedKinds.skipped(skipped);
    }

    @Override
    public void state(IntakeState next) {
      if (!next.equals(state)) {
        if (next.up()) {
          LOG.info("intake up previous_cause={}", state.cause());
        }
        state = next;
      }
    }

    @Override
    public void polled() {
      String lost = contact.lost();
      if (lost != null) {
        if (state.up()) {
          LOG.error(
              "intake has no contact with Kafka bootstrap_servers=\"{}\" reason=\"{}\"",
              SafeText.text(options.bootstrapServers(), SafeText.MAX_REASON),
              lost);
        }
        state(IntakeState.down(IntakeState.Cause.KAFKA, lost));
      } else if (state.cause() == IntakeState.Cause.KAFKA) {
        state(IntakeState.UP);
      }
    }

    @Override
    public boolean pause(Duration delay) {
      return ReceiptConsumer.this.pause(delay);
    }
  }

  @Override
  public void close() {
    running = false;
    stopped.countDown();
    Consumer<byte[], byte[]> consumer = current;
    if (consumer != null) {
      consumer.wakeup();
    }
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
