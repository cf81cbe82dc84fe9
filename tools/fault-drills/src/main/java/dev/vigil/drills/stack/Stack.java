package dev.vigil.drills.stack;

import dev.vigil.harness.FreePorts;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service processes of one drill run: relays (one streams, the others stand by), notifier
 * instances and the reference receiver. Each process keeps its HTTP port across restarts, so a
 * restarted relay is "the same instance coming back".
 */
public final class Stack implements AutoCloseable {
  /** Path the notifier posts to, on the receiver (and on the chaos proxy in front of it). */
  public static final String RECEIVER_WEBHOOK_PATH = ServiceEnv.RECEIVER_PATH;

  /** The notifier's webhook read timeout; a "slow" receiver answers later than this. */
  public static final Duration WEBHOOK_READ_TIMEOUT =
      Duration.ofMillis(ServiceEnv.WEBHOOK_READ_TIMEOUT_MS);

  /** The relays' replication slot (failover slot on PostgreSQL 17). */
  public static final String RELAY_SLOT = ServiceEnv.RELAY_SLOT;

  private static final Logger LOG = LoggerFactory.getLogger(Stack.class);

  private final Infra infra;
  private final StackOptions options;
  private final List<ServiceProcess> relays = new ArrayList<>();
  private final List<ServiceProcess> variants = new ArrayList<>();
  private final List<ServiceProcess> notifiers = new ArrayList<>();
  private ServiceProcess receiver;
  private ServiceProcess monitor;
  private final List<ServiceProcess> locatedMonitors = new ArrayList<>();
  private ConnectWorker connectWorker;

  private final Thread killOnExit = new Thread(this::killAll, "drill-stack-kill-on-exit");

  /**
   * Creates an empty stack. If the drill JVM is ended (Ctrl-C) before {@link #close()}, a shutdown
   * hook kills every service process, so none is left running.
   */
  public Stack(Infra infra, StackOptions options) {
    this.infra = infra;
    this.options = options;
    Runtime.getRuntime().addShutdownHook(killOnExit);
  }

  private void killAll() {
    for (ServiceProcess process : processes()) {
      if (process.isAlive()) {
        process.kill9();
      }
    }
  }

  public Infra infra() {
    return infra;
  }

  public StackOptions options() {
    return options;
  }

  /** Starts the reference receiver (without waiting for it; see {@link #awaitHealthy}). */
  public synchronized ServiceProcess startReceiver() {
    if (receiver == null) {
      int port = FreePorts.pick();
      receiver =
          new ServiceProcess(
              "receiver",
              ServiceEnv.RECEIVER_MAIN,
              ServiceEnv.receiver(infra, options, port),
              port,
              options.logDir(),
              options.jvmOptions());
    }
    if (!receiver.isAlive()) {
      receiver.start();
    }
    return receiver;
  }

  /** Base URL of the receiver, e.g. {@code http://127.0.0.1:4711}. */
  public synchronized String receiverBaseUrl() {
    if (receiver == null) {
      throw new IllegalStateException("receiver not started");
    }
    return "http://127.0.0.1:" + receiver.httpPort();
  }

  /** Adds and starts another relay instance (it streams or stands by, as the lock decides). */
  public synchronized ServiceProcess addRelay() {
    ServiceProcess relay = relay("relay-" + (relays.size() + 1), Map.of());
    relays.add(relay);
    relay.start();
    return relay;
  }

  /**
   * A relay whose settings differ from the others' by {@code settings} (e.g. a short transaction
   * timeout), created on first use and started if it is not running. It is not one of {@link
   * #standardRelays()}: a drill that wants the usual relays stops it.
   */
  public synchronized ServiceProcess startVariantRelay(String name, Map<String, String> settings) {
    ServiceProcess variant =
        variants.stream().filter(v -> v.name().equals(name)).findFirst().orElse(null);
    if (variant == null) {
      variant = relay(name, settings);
      variants.add(variant);
    }
    if (!variant.isAlive()) {
      variant.start();
    }
    return variant;
  }

  private ServiceProcess relay(String name, Map<String, String> settings) {
    int port = FreePorts.pick();
    Map<String, String> env = ServiceEnv.relay(infra, options, name, port);
    env.putAll(settings);
    return new ServiceProcess(
        name, ServiceEnv.RELAY_MAIN, env, port, options.logDir(), options.jvmOptions());
  }

  /**
   * Starts the monitor (API and pushed results, no scheduler) if it is not running, without waiting
   * for it.
   */
  public synchronized ServiceProcess startMonitor() {
    if (monitor == null) {
      int port = FreePorts.pick();
      monitor =
          new ServiceProcess(
              "monitor",
              ServiceEnv.MONITOR_MAIN,
              ServiceEnv.monitor(infra, port),
              port,
              options.logDir(),
              options.jvmOptions());
    }
    if (!monitor.isAlive()) {
      monitor.start();
    }
    return monitor;
  }

  /**
   * Adds and starts a probing monitor of {@code location} (named {@code monitor-<location>}), with
   * {@code jvmOptions} on top of the stack's (e.g. a hosts file of its own), without waiting for
   * it.
   */
  public synchronized ServiceProcess addLocatedMonitor(String location, List<String> jvmOptions) {
    int port = FreePorts.pick();
    List<String> options = new ArrayList<>(this.options.jvmOptions());
    options.addAll(jvmOptions);
    ServiceProcess located =
        new ServiceProcess(
            "monitor-" + location,
            ServiceEnv.MONITOR_MAIN,
            ServiceEnv.locatedMonitor(infra, port, location),
            port,
            this.options.logDir(),
            options);
    locatedMonitors.add(located);
    located.start();
    return located;
  }

  /**
   * Adds and starts a probing monitor named {@code name} for targets that list no locations (any
   * instance claims them), with {@code settings} on top of its environment (e.g. the announce
   * interval), without waiting for it.
   */
  public synchronized ServiceProcess addProbingMonitor(String name, Map<String, String> settings) {
    int port = FreePorts.pick();
    Map<String, String> env = ServiceEnv.locatedMonitor(infra, port, "default");
    env.put("VIGIL_INSTANCE_ID", name);
    env.putAll(settings);
    ServiceProcess probing =
        new ServiceProcess(
            name, ServiceEnv.MONITOR_MAIN, env, port, options.logDir(), options.jvmOptions());
    locatedMonitors.add(probing);
    probing.start();
    return probing;
  }

  /**
   * Deletes the relays' stored offsets with a tombstone on their offsets topic: the way out the
   * relay names when it refuses to start on a database behind them (exactly-once). A relay started
   * afterwards resumes from the replication slot's own position.
   */
  public void deleteRelayOffsets() {
    byte[] key =
        ("[\"vigil-relay-" + RELAY_SLOT + "\",{\"server\":\"vigil_relay\"}]")
            .getBytes(StandardCharsets.UTF_8);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.bootstrapServers()),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      producer
          .send(new ProducerRecord<>(ServiceEnv.RELAY_OFFSETS_TOPIC, key, null))
          .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot write the tombstone of the relay offsets", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while deleting the relay offsets", e);
    }
    LOG.info("relay offsets deleted (tombstone) topic={}", ServiceEnv.RELAY_OFFSETS_TOPIC);
  }

  /** The bearer token of the monitor's API and the notifiers' admin API. */
  public String apiToken() {
    return ServiceEnv.API_TOKEN;
  }

  /** Adds and starts another notifier instance delivering to {@code webhookUrl}. */
  public synchronized ServiceProcess addNotifier(String webhookUrl) {
    int port = FreePorts.pick();
    ServiceProcess notifier =
        new ServiceProcess(
            "notifier-" + (notifiers.size() + 1),
            ServiceEnv.NOTIFIER_MAIN,
            ServiceEnv.notifier(infra, options, port, webhookUrl),
            port,
            options.logDir(),
            options.jvmOptions());
    notifiers.add(notifier);
    notifier.start();
    return notifier;
  }

  /**
   * The Kafka Connect worker (created on first use, files under the log directory's parent),
   * started if it is not running. Never run it together with a relay: both would publish every
   * event.
   */
  public synchronized ConnectWorker startConnectWorker() {
    if (connectWorker == null) {
      connectWorker =
          ConnectWorker.create(infra, options, options.logDir().resolveSibling("connect-worker"));
    }
    if (!connectWorker.process().isAlive()) {
      connectWorker.process().start();
    }
    return connectWorker;
  }

  /**
   * Every process the stack has created: receiver, relays, notifiers, monitors, the Connect worker.
   */
  public synchronized List<ServiceProcess> processes() {
    List<ServiceProcess> all = new ArrayList<>();
    if (receiver != null) {
      all.add(receiver);
    }
    all.addAll(relays);
    all.addAll(variants);
    all.addAll(notifiers);
    if (monitor != null) {
      all.add(monitor);
    }
    all.addAll(locatedMonitors);
    if (connectWorker != null) {
      all.add(connectWorker.process());
    }
    return all;
  }

  /** Every relay: the standard ones, then the variants. */
  public synchronized List<ServiceProcess> relays() {
    List<ServiceProcess> all = new ArrayList<>(relays);
    all.addAll(variants);
    return all;
  }

  /** The relays with the stack's usual settings ({@link #addRelay()}). */
  public synchronized List<ServiceProcess> standardRelays() {
    return List.copyOf(relays);
  }

  /** The relays with settings of their own ({@link #startVariantRelay}). */
  public synchronized List<ServiceProcess> variantRelays() {
    return List.copyOf(variants);
  }

  public synchronized List<ServiceProcess> notifiers() {
    return List.copyOf(notifiers);
  }

  /** The relay whose /health says it is streaming, if any. */
  public Optional<ServiceProcess> streamingRelay() {
    for (ServiceProcess relay : relays()) {
      Optional<String> health = relay.health();
      if (health.isPresent() && isStreaming(health.get())) {
        return Optional.of(relay);
      }
    }
    return Optional.empty();
  }

  /**
   * The relay's /health check {@code stream} shows {@code "state":"streaming"} while it streams.
   */
  public static boolean isStreaming(String health) {
    return health.replace(" ", "").toLowerCase(Locale.ROOT).contains("\"state\":\"streaming\"");
  }

  /** Waits until some relay streams; fails with the relays' health after {@code timeout}. */
  public ServiceProcess awaitStreamingRelay(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<ServiceProcess> streaming = streamingRelay();
      if (streaming.isPresent()) {
        return streaming.get();
      }
      if (System.nanoTime() > deadline) {
        List<String> states = new ArrayList<>();
        for (ServiceProcess relay : relays()) {
          states.add(relay.name() + "=" + relay.health().orElse("no answer"));
        }
        throw new IllegalStateException("no relay streaming after " + timeout + ": " + states);
      }
      pause(200);
    }
  }

  /** Waits until {@code process} answers /health with a 2xx status. */
  public static void awaitHealthy(ServiceProcess process, Duration timeout) {
    await(
        process.name() + " healthy",
        timeout,
        () -> {
          if (!process.isAlive()) {
            throw new IllegalStateException(
                process.name() + " exited during startup; see " + process.logFile());
          }
          return process.health().map(h -> h.startsWith("2")).orElse(false);
        });
  }

  /** Polls {@code condition} every 100 ms until it holds; fails naming {@code what}. */
  public static void await(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out after " + timeout + " waiting for " + what);
      }
      pause(100);
    }
  }

  /** Sleeps for pacing (not for synchronisation), keeping the interrupt. */
  public static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Stops every process with SIGTERM (notifiers first, then relays, then the receiver). */
  @Override
  public synchronized void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(killOnExit);
    } catch (IllegalStateException e) {
      LOG.debug("JVM already shutting down; the hook kills the processes");
    }
    List<ServiceProcess> all = new ArrayList<>(locatedMonitors);
    all.addAll(notifiers);
    if (monitor != null) {
      all.add(monitor);
    }
    all.addAll(relays);
    all.addAll(variants);
    if (connectWorker != null) {
      all.add(connectWorker.process());
    }
    if (receiver != null) {
      all.add(receiver);
    }
    for (ServiceProcess process : all) {
      try {
        if (process.isAlive()) {
          process.stop();
        }
      } catch (RuntimeException e) {
        LOG.warn("cannot stop process name={} error={}", process.name(), e.toString());
      }
    }
  }
}
