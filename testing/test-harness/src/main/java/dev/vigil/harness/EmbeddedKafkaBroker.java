package dev.vigil.harness;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node Apache Kafka broker in KRaft mode (combined broker and controller) running inside
 * this JVM. Its log directory is formatted once and kept, so {@link #stop()} followed by {@link
 * #start()} is a real broker restart on the same ports with the same data — what fault tests need.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);
  private static final int NODE_ID = 1;

  private final Path logDir;
  private final int port;
  private final int controllerPort;
  private final SaslSslListener saslSsl;
  private final int saslSslPort;
  private KafkaRaftServer server;

  /**
   * A second client listener, {@code SASL_SSL} with SCRAM-SHA-512, beside the PLAINTEXT one (which
   * the broker itself and test set-up keep using): what platform Kafka clusters (Strimzi, MSK,
   * Confluent) offer their clients.
   *
   * @param keyStore PKCS12 key store with the broker's key and certificate chain
   * @param keyStorePassword its password (also the key's)
   */
  public record SaslSslListener(Path keyStore, String keyStorePassword) {}

  private EmbeddedKafkaBroker(Path logDir, int port, int controllerPort) {
    this(logDir, port, controllerPort, null, 0);
  }

  private EmbeddedKafkaBroker(
      Path logDir, int port, int controllerPort, SaslSslListener saslSsl, int saslSslPort) {
    this.logDir = logDir;
    this.port = port;
    this.controllerPort = controllerPort;
    this.saslSsl = saslSsl;
    this.saslSslPort = saslSslPort;
  }

  /**
   * As {@link #start(Path, int)} on free ports, with a {@code SASL_SSL} (SCRAM-SHA-512) listener
   * too; add its users with {@link #createScramUser}.
   */
  public static EmbeddedKafkaBroker startWithSaslSsl(Path baseDir, SaslSslListener listener) {
    Path logDir = baseDir.resolve("kraft-logs");
    EmbeddedKafkaBroker broker =
        new EmbeddedKafkaBroker(
            logDir, FreePorts.pick(), FreePorts.pick(), listener, FreePorts.pick());
    broker.format();
    broker.start();
    return broker;
  }

  /** Bootstrap servers of the {@code SASL_SSL} listener. */
  public String saslSslBootstrapServers() {
    if (saslSsl == null) {
      throw new IllegalStateException("this broker has no SASL_SSL listener");
    }
    return "127.0.0.1:" + saslSslPort;
  }

  /** Adds (or replaces) a SCRAM-SHA-512 user for the {@code SASL_SSL} listener. */
  public void createScramUser(String user, String password) {
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                30_000))) {
      admin
          .alterUserScramCredentials(
              List.of(
                  new UserScramCredentialUpsertion(
                      user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password)))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating SCRAM user " + user, e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create SCRAM user " + user, e);
    }
  }

  /**
   * Formats {@code baseDir} (unless it already holds a broker's data) and starts the broker.
   *
   * @param port the client port, or 0 for a free one (kept across restarts)
   */
  public static EmbeddedKafkaBroker start(Path baseDir, int port) {
    Path logDir = baseDir.resolve("kraft-logs");
    EmbeddedKafkaBroker broker =
        new EmbeddedKafkaBroker(logDir, port == 0 ? FreePorts.pick() : port, FreePorts.pick());
    broker.format();
    broker.start();
    return broker;
  }

  /** Starts the broker (again) and waits until it answers metadata requests. */
  public synchronized void start() {
    if (server != null) {
      return;
    }
    long started = System.nanoTime();
    server = new KafkaRaftServer(config(), Time.SYSTEM);
    server.startup();
    awaitReady(Duration.ofSeconds(60));
    LOG.info(
        "kafka started bootstrap={} logDir={} tookMs={}",
        bootstrapServers(),
        logDir,
        (System.nanoTime() - started) / 1_000_000);
  }

  /** Stops the broker; clients see it as unavailable until {@link #start()}. Data is kept. */
  public synchronized void stop() {
    if (server == null) {
      return;
    }
    try {
      server.shutdown();
      server.awaitShutdown();
      LOG.info("kafka stopped bootstrap={}", bootstrapServers());
    } finally {
      server = null;
    }
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  public synchronized boolean isRunning() {
    return server != null;
  }

  @Override
  public void close() {
    stop();
  }

  private void format() {
    try {
      Files.createDirectories(logDir);
      if (Files.exists(logDir.resolve("meta.properties"))) {
        return;
      }
      new Formatter()
          .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
          .setNodeId(NODE_ID)
          .setClusterId(Uuid.randomUuid().toString())
          .setDirectories(List.of(logDir.toString()))
          .setMetadataLogDirectory(logDir.toString())
          .setControllerListenerName("CONTROLLER")
          .setReleaseVersion(MetadataVersion.latestProduction())
          .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
          .setIgnoreFormatted(true)
          .run();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create Kafka log directory " + logDir, e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot format Kafka log directory " + logDir, e);
    }
  }

  private KafkaConfig config() {
    Properties props = new Properties();
    props.put("process.roles", "broker,controller");
    props.put("node.id", String.valueOf(NODE_ID));
    props.put("controller.quorum.voters", NODE_ID + "@127.0.0.1:" + controllerPort);
    props.put(
        "listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
    props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
    props.put("controller.listener.names", "CONTROLLER");
    props.put("inter.broker.listener.name", "PLAINTEXT");
    props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    if (saslSsl != null) {
      addSaslSslListener(props);
    }
    props.put("log.dirs", logDir.toString());
    // A single node: every internal topic has one replica.
    props.put("offsets.topic.replication.factor", "1");
    props.put("offsets.topic.num.partitions", "5");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    // A transaction open longer than its transaction.timeout.ms is aborted within a second, not
    // within the default 10 s, so tests of the relay's transaction timeout need not be that long.
    props.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
    props.put("share.coordinator.state.topic.replication.factor", "1");
    props.put("share.coordinator.state.topic.min.isr", "1");
    props.put("default.replication.factor", "1");
    props.put("min.insync.replicas", "1");
    props.put("group.initial.rebalance.delay.ms", "0");
    // Topics are created deliberately (the relay creates its topic), never by a typo in a client.
    props.put("auto.create.topics.enable", "false");
    props.put("log.segment.bytes", String.valueOf(64 * 1024 * 1024));
    props.put("num.network.threads", "2");
    props.put("num.io.threads", "4");
    return new KafkaConfig(props, false);
  }

  private void addSaslSslListener(Properties props) {
    String listener = "SASL_SSL://127.0.0.1:" + saslSslPort;
    props.put("listeners", props.getProperty("listeners") + "," + listener);
    props.put("advertised.listeners", props.getProperty("advertised.listeners") + "," + listener);
    props.put(
        "listener.security.protocol.map",
        props.getProperty("listener.security.protocol.map") + ",SASL_SSL:SASL_SSL");
    String prefix = "listener.name.sasl_ssl.";
    props.put(prefix + "sasl.enabled.mechanisms", "SCRAM-SHA-512");
    props.put(
        prefix + "scram-sha-512.sasl.jaas.config",
        "org.apache.kafka.common.security.scram.ScramLoginModule required;");
    props.put(prefix + "ssl.keystore.type", "PKCS12");
    props.put(prefix + "ssl.keystore.location", saslSsl.keyStore().toString());
    props.put(prefix + "ssl.keystore.password", saslSsl.keyStorePassword());
    props.put(prefix + "ssl.key.password", saslSsl.keyStorePassword());
  }

  private void awaitReady(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000))) {
      while (true) {
        try {
          if (!admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).isEmpty()) {
            return;
          }
        } catch (Exception e) {
          if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Kafka", e);
          }
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("Kafka broker not ready after " + timeout, e);
          }
        }
      }
    }
  }
}
