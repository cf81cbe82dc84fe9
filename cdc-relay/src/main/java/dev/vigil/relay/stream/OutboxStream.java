package dev.vigil.relay.stream;

import static dev.vigil.relay.config.RelayConfig.DELIVERY;
import static dev.vigil.relay.config.RelayConfig.OFFSETS_TOPIC;
import static dev.vigil.relay.config.RelayConfig.PRODUCER_LINGER;
import static dev.vigil.relay.config.RelayConfig.SLOT;
import static dev.vigil.relay.config.RelayConfig.TRANSACTION_TIMEOUT;

import dev.vigil.relay.config.RelayConfig;
import dev.vigil.relay.ops.RelayMetrics;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.InvalidTxnTimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of the embedded Debezium engine (PostgreSQL connector, pgoutput, Outbox EventRouter)
 * feeding a {@link KafkaPublisher}. A run ends when it is closed or fails; the supervisor then
 * decides whether to start another one.
 */
public final class OutboxStream implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OutboxStream.class);
  private static final Duration GRACEFUL_STOP = Duration.ofSeconds(20);

  private final KafkaProducer<byte[], byte[]> producer;
  private final BatchPublisher publisher;
  private final DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
  private final ExecutorService executor;
  private final CompletableFuture<Void> completion = new CompletableFuture<>();
  // The server the task streams from, stored with each batch's offsets (exactly-once only).
  private final AtomicReference<StoredPositionCheck.Origin> origin = new AtomicReference<>();

  private OutboxStream(
      RelayConfig config,
      RelayMetrics metrics,
      LargeTransactions large,
      Runnable onStreaming,
      Runnable onFirstBatch) {
    producer = new KafkaProducer<>(config.kafkaClient().on(producerProperties(config)));
    Runnable firstBatch =
        () -> {
          metrics.firstBatchRelayed();
          onFirstBatch.run();
        };
    publisher =
        config.exactlyOnce()
            ? new ExactlyOncePublisher(
                producer,
                config.topic(),
                transactionalId(config),
                new OffsetRecords(config.get(OFFSETS_TOPIC), EngineProperties.engineName(config)),
                metrics,
                origin::get,
                large,
                firstBatch)
            : new KafkaPublisher(producer, config.topic(), metrics, firstBatch);
    engine =
        DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
            .using(EngineProperties.of(config))
            .notifying(publisher)
            .using(
                new DebeziumEngine.ConnectorCallback() {
                  @Override
                  public void taskStarted() {
                    if (config.exactlyOnce()) {
                      // Again at every task start: Debezium's own restarts may follow a failover.
                      origin.set(readOrigin(config));
                    }
                    metrics.streamStarted();
                    onStreaming.run();
                  }

                  @Override
                  public void taskStopped() {
                    LOG.info("connector task stopped slot={}", config.get(SLOT));
                  }
                })
            .using(this::completed)
            .build();
    executor =
        Executors.newSingleThreadExecutor(
            r -> Thread.ofPlatform().name("relay-engine").unstarted(r));
  }

  /**
   * Creates the topic if missing and starts streaming.
   *
   * @param onStreaming called when the connector task started (the slot is being streamed)
   * @param onFirstBatch called after the first batch was acknowledged
   */
  public static OutboxStream start(
      RelayConfig config,
      RelayMetrics metrics,
      LargeTransactions large,
      Runnable onStreaming,
      Runnable onFirstBatch)
      throws InterruptedException {
    TopicSetup.ensure(config);
    if (config.exactlyOnce()) {
      TopicSetup.ensureOffsetsTopic(config);
    }
    OutboxStream stream = new OutboxStream(config, metrics, large, onStreaming, onFirstBatch);
    if (config.exactlyOnce()) {
      stream.initTransactions(config);
    }
    stream.executor.execute(stream.engine);
    LOG.info(
        "engine started slot={} topic={} delivery={}",
        config.get(SLOT),
        config.topic(),
        config.get(DELIVERY));
    return stream;
  }

  /**
   * Registers the transactional id before the engine reads its offsets: this fences every earlier
   * producer with the id (a zombie relay on the same slot can no longer commit) and completes or
   * aborts the transaction it left, so the offsets read next are final.
   */
  private void initTransactions(RelayConfig config) {
    try {
      producer.initTransactions();
      // Metadata of both topics now, while Kafka answers: a send() without it would wait for it
      // and, if the broker is down by then, fail; in a transaction that failure ends the run,
      // whereas a record in the buffer is retried until the broker is back (health says so).
      producer.partitionsFor(config.topic());
      producer.partitionsFor(config.get(OFFSETS_TOPIC));
      LOG.info(
          "kafka transactions initialised transactional_id={} (earlier producers with this id"
              + " are fenced)",
          transactionalId(config));
    } catch (RuntimeException e) {
      producer.close(Duration.ZERO);
      executor.shutdownNow();
      if (e instanceof InvalidTxnTimeoutException) {
        throw new IllegalStateException(
            TRANSACTION_TIMEOUT.key()
                + "="
                + config.get(TRANSACTION_TIMEOUT)
                + " is above the broker's transaction.max.timeout.ms (15 min unless set): lower"
                + " it, or raise the broker's setting",
            e);
      }
      throw e;
    }
  }

  /**
   * The identity of the server the task streams from, or null (stored offsets then carry none, and
   * the next start checks only their position) when the server cannot say.
   */
  private static StoredPositionCheck.Origin readOrigin(RelayConfig config) {
    try {
      ServerIdentity server = ServerIdentity.read(config);
      return new StoredPositionCheck.Origin(server.systemId(), server.timeline());
    } catch (SQLException | RuntimeException e) {
      LOG.warn("server identity not read, offsets stored without it error={}", e.toString());
      return null;
    }
  }

  /**
   * How long the batch in flight has been waiting for Kafka (0 when none is): the producer keeps
   * retrying, so a long wait means Kafka is unreachable, not that anything was dropped.
   */
  public Duration pendingKafkaAck() {
    return publisher.acks().pendingAck();
  }

  /** Whether this run has relayed a batch (Kafka acknowledged every record of it). */
  public boolean relayedABatch() {
    return publisher.acks().relayedABatch();
  }

  /** Whether the batch in flight failed, so this run is ending (the engine is stopping). */
  public boolean pendingBatchFailed() {
    return publisher.acks().batchHasFailed();
  }

  /** Kafka's last reason for not accepting a record of the batch in flight, or null. */
  public String pendingKafkaReason() {
    return publisher.acks().pendingReason();
  }

  /** Completes when the engine stopped: normally, or exceptionally with the reason. */
  public CompletableFuture<Void> completion() {
    return completion;
  }

  /**
   * Stops gracefully: the engine finishes its in-flight batch and stores its offsets. If Kafka is
   * unreachable the batch cannot finish; after a grace period the producer is closed, its pending
   * sends fail, and nothing of that batch is marked processed.
   */
  @Override
  public void close() {
    Thread closer = Thread.ofPlatform().name("relay-engine-close").start(this::closeEngine);
    try {
      closer.join(GRACEFUL_STOP);
      if (closer.isAlive()) {
        LOG.warn("engine did not stop within {}, aborting pending Kafka sends", GRACEFUL_STOP);
        producer.close(Duration.ZERO);
        closer.join(GRACEFUL_STOP);
      }
      executor.shutdown();
      if (!executor.awaitTermination(GRACEFUL_STOP.toMillis(), TimeUnit.MILLISECONDS)) {
        executor.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      executor.shutdownNow();
    } finally {
      publisher.engineStopped();
      producer.close(Duration.ofSeconds(5));
    }
  }

  private void closeEngine() {
    try {
      engine.close();
    } catch (IOException | RuntimeException e) {
      LOG.warn("engine close failed", e);
    }
  }

  private void completed(boolean success, String message, Throwable error) {
    if (success && error == null) {
      LOG.info("engine stopped message={}", message);
      completion.complete(null);
    } else {
      LOG.warn("engine failed message={}", message, error);
      // A record Kafka refused for good is the reason worth showing, however Debezium wrapped it.
      Throwable reason = sendFailure(error);
      completion.completeExceptionally(
          reason != null ? reason : new IllegalStateException("engine failed: " + message));
    }
  }

  private static Throwable sendFailure(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof RelaySendException || t instanceof RelayFencedException) {
        return t;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return error;
  }

  /**
   * The producer's transactional id: one per slot, so a second relay on the slot fences the first.
   */
  static String transactionalId(RelayConfig config) {
    return "vigil-relay-" + config.get(SLOT);
  }

  /** Properties of the consumer that reads the offsets topic back. */
  static Map<String, Object> offsetsConsumerProperties(RelayConfig config) {
    return config
        .kafkaClient()
        .on(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                config.kafkaBootstrapServers(),
                ConsumerConfig.CLIENT_ID_CONFIG,
                "vigil-relay-offsets-" + config.instanceId()));
  }

  static Map<String, Object> producerProperties(RelayConfig config) {
    Map<String, Object> props = new HashMap<>(atLeastOnceProducerProperties(config));
    if (config.exactlyOnce()) {
      props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId(config));
      // How long an open transaction of a relay that died survives when no relay of the slot
      // starts again (a new one aborts it at once): until then read_committed readers wait.
      // It also bounds how long one PostgreSQL transaction may take to relay (LargeTransactions).
      props.put(
          ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
          (int) config.get(TRANSACTION_TIMEOUT).toMillis());
    }
    return props;
  }

  private static Map<String, Object> atLeastOnceProducerProperties(RelayConfig config) {
    return Map.ofEntries(
        Map.entry(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafkaBootstrapServers()),
        Map.entry(ProducerConfig.CLIENT_ID_CONFIG, "vigil-relay-" + config.instanceId()),
        Map.entry(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class),
        Map.entry(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class),
        Map.entry(ProducerConfig.ACKS_CONFIG, "all"),
        Map.entry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true),
        Map.entry(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5),
        Map.entry(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4"),
        Map.entry(ProducerConfig.LINGER_MS_CONFIG, (int) config.get(PRODUCER_LINGER).toMillis()),
        Map.entry(ProducerConfig.BATCH_SIZE_CONFIG, 128 * 1024),
        // Every row the outbox accepts fits (its payload limit plus room for key and headers).
        Map.entry(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, TopicSetup.MAX_RECORD_BYTES),
        // Never give up on a record: a send that expired could let a later one of the same
        // service overtake it. Transient outages are retried until Kafka is back.
        Map.entry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.MAX_VALUE),
        Map.entry(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000),
        Map.entry(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000),
        Map.entry(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 100),
        Map.entry(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 1_000),
        Map.entry(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1_000));
  }
}
