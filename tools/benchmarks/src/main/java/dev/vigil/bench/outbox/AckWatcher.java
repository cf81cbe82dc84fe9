package dev.vigil.bench.outbox;

import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertTopic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a topic from its end and, for every record whose event id a writer committed, keeps three
 * times: the commit (from the writer), the broker's log-append time (the record timestamp on a
 * LogAppendTime topic — when an acks=all producer on a single node is acknowledged) and when this
 * consumer saw it.
 */
public final class AckWatcher implements AutoCloseable {
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Map<UUID, Long> commitMicros;
  private final Thread thread;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong unmatched = new AtomicLong();
  private final Map<UUID, long[]> early = new java.util.HashMap<>(); // watcher thread only
  private volatile boolean requestReset;
  private final AtomicLong createTimeRecords = new AtomicLong();
  private final Object lock = new Object();
  private Arrivals arrivals = new Arrivals();
  private volatile RuntimeException failure;

  /** Starts reading {@code topic} from its current end, read_uncommitted. */
  public AckWatcher(String bootstrapServers, String topic, Map<UUID, Long> commitMicros) {
    this(bootstrapServers, topic, commitMicros, "read_uncommitted");
  }

  /**
   * Starts reading {@code topic} from its current end with the given {@code isolation.level}: with
   * read_committed, "seen" is when a record of a Kafka transaction became visible (its commit), not
   * when it was appended.
   */
  public AckWatcher(
      String bootstrapServers, String topic, Map<UUID, Long> commitMicros, String isolation) {
    this.commitMicros = commitMicros;
    Properties props = new Properties();
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "5");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
    this.consumer = new KafkaConsumer<>(props);
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
            .map(p -> new TopicPartition(topic, p.partition()))
            .toList();
    consumer.assign(partitions);
    consumer.seekToEnd(partitions);
    partitions.forEach(consumer::position); // resolve the end now, before any writer starts
    this.thread = Thread.ofPlatform().name("ack-watcher-" + topic).start(this::loop);
  }

  private void loop() {
    try {
      while (running.get()) {
        if (requestReset) {
          unmatched.addAndGet(early.size());
          early.clear();
          requestReset = false;
        }
        var records = consumer.poll(Duration.ofMillis(50));
        long seen = Clocks.nowMicros();
        for (ConsumerRecord<byte[], byte[]> r : records) {
          if (r.timestampType() != TimestampType.LOG_APPEND_TIME) {
            createTimeRecords.incrementAndGet();
          }
          UUID id = eventId(r);
          Long committed = commitMicros.remove(id);
          if (committed == null) {
            // The writer records the commit time just after commit() returns; a fast relay can
            // deliver the row before that. Keep it and match it on a later pass.
            early.put(id, new long[] {r.timestamp() * 1000, seen});
            continue;
          }
          synchronized (lock) {
            arrivals.add(committed, r.timestamp() * 1000, seen);
          }
        }
        matchEarly();
      }
    } catch (RuntimeException e) {
      if (running.get()) {
        failure = e;
      }
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  private void matchEarly() {
    if (early.isEmpty()) {
      return;
    }
    for (var it = early.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      Long committed = commitMicros.remove(e.getKey());
      if (committed != null) {
        synchronized (lock) {
          arrivals.add(committed, e.getValue()[0], e.getValue()[1]);
        }
        it.remove();
      }
    }
  }

  private static UUID eventId(ConsumerRecord<byte[], byte[]> r) {
    Header id = r.headers().lastHeader(AlertTopic.HEADER_EVENT_ID);
    if (id != null) {
      try {
        return UUID.fromString(new String(id.value(), StandardCharsets.UTF_8).replace("\"", ""));
      } catch (IllegalArgumentException e) {
        // fall through to the payload
      }
    }
    return AlertEventJson.read(r.value()).eventId();
  }

  /** Forgets the arrivals seen so far and returns them. */
  public Arrivals takeArrivals() {
    synchronized (lock) {
      Arrivals taken = arrivals;
      arrivals = new Arrivals();
      return taken;
    }
  }

  /**
   * Starts a new case: records not matched to a commit so far (left from an earlier case, or not
   * written by our writers) are counted as unmatched and forgotten.
   */
  public void reset() {
    requestReset = true;
    long deadline = System.nanoTime() + 2_000_000_000L;
    while (requestReset && System.nanoTime() < deadline) {
      OutboxRun.sleep(5); // the watcher thread clears its own state within one poll
    }
    takeArrivals();
  }

  /** How many of the arrivals held now were committed in {@code [from, to)}. */
  public long arrivedCommittedBetween(long from, long to) {
    synchronized (lock) {
      return arrivals.committedBetween(from, to);
    }
  }

  /** Records never matched to a commit (e.g. left from an earlier case) — ignored. */
  public long unmatched() {
    return unmatched.get();
  }

  /** Records whose timestamp was not log-append time: their latency is measured to the send. */
  public long createTimeRecords() {
    return createTimeRecords.get();
  }

  public void check() {
    if (failure != null) {
      throw new IllegalStateException("watcher failed", failure);
    }
  }

  @Override
  public void close() {
    running.set(false);
    consumer.wakeup();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
