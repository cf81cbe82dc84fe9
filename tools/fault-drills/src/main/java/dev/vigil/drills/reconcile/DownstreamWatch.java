package dev.vigil.drills.reconcile;

import dev.vigil.drills.workload.CommittedEvent;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the topic and the receiver's store while drills run and remembers when each event id was
 * first seen at each stage. That gives the time to recover after a fault: from the moment the fault
 * was healed until the first event committed after that moment shows up downstream. It is only for
 * timing; the counts come from full {@link Snapshots} after each drill.
 */
public final class DownstreamWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DownstreamWatch.class);

  private final String bootstrapServers;
  private final String topic;
  private final String receiverJdbcUrl;
  private final String user;
  private final Map<UUID, Long> onKafka = new ConcurrentHashMap<>();
  private final Map<UUID, Long> atReceiver = new ConcurrentHashMap<>();
  private final Thread kafkaTail;
  private final Thread receiverTail;
  private volatile boolean running = true;
  private volatile boolean storeRewound;
  private volatile KafkaConsumer<String, byte[]> tailConsumer;

  public DownstreamWatch(
      String bootstrapServers, String topic, String receiverJdbcUrl, String user) {
    this.bootstrapServers = bootstrapServers;
    this.topic = topic;
    this.receiverJdbcUrl = receiverJdbcUrl;
    this.user = user;
    this.kafkaTail = Thread.ofPlatform().name("watch-kafka").daemon(true).start(this::tailKafka);
    this.receiverTail =
        Thread.ofPlatform().name("watch-receiver").daemon(true).start(this::tailReceiver);
  }

  /** How many of {@code events} were seen at the receiver so far. */
  public long receiverSeen(Collection<CommittedEvent> events) {
    return events.stream().filter(e -> atReceiver.containsKey(e.eventId())).count();
  }

  /** Distinct events seen at the receiver so far. */
  public long receiverDistinct() {
    return atReceiver.size();
  }

  /** How many of {@code events} were seen on Kafka so far. */
  public long kafkaSeen(Collection<CommittedEvent> events) {
    return events.stream().filter(e -> onKafka.containsKey(e.eventId())).count();
  }

  /**
   * The receiver's store went back in time (its database was restored): its sequence numbers are
   * used again, so the tail reads it from the start once more (first sightings are kept).
   */
  public void storeRewound() {
    storeRewound = true;
  }

  /** Distinct events seen on Kafka so far. */
  public long kafkaDistinct() {
    return onKafka.size();
  }

  /**
   * Milliseconds from {@code healedNanos} until the first event committed at or after it was seen
   * on Kafka, or -1 if none was.
   */
  public long kafkaRecoveryMs(Collection<CommittedEvent> events, long healedNanos) {
    return recovery(onKafka, events, healedNanos);
  }

  /** As {@link #kafkaRecoveryMs}, for the receiver's store. */
  public long receiverRecoveryMs(Collection<CommittedEvent> events, long healedNanos) {
    return recovery(atReceiver, events, healedNanos);
  }

  private static long recovery(
      Map<UUID, Long> seen, Collection<CommittedEvent> events, long healedNanos) {
    long first = Long.MAX_VALUE;
    for (CommittedEvent event : events) {
      if (event.committedNanos() >= healedNanos) {
        Long at = seen.get(event.eventId());
        if (at != null && at < first) {
          first = at;
        }
      }
    }
    return first == Long.MAX_VALUE ? -1 : Math.max(0, (first - healedNanos) / 1_000_000);
  }

  @Override
  public void close() {
    running = false;
    KafkaConsumer<String, byte[]> consumer = tailConsumer;
    if (consumer != null) {
      consumer.wakeup();
    }
    receiverTail.interrupt();
    try {
      kafkaTail.join(10_000);
      receiverTail.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void tailKafka() {
    try (KafkaConsumer<String, byte[]> consumer = Snapshots.consumer(bootstrapServers)) {
      tailConsumer = consumer;
      List<TopicPartition> partitions = null;
      while (running && partitions == null) {
        try {
          partitions = Snapshots.partitions(consumer, topic);
        } catch (RuntimeException e) {
          pause(100);
        }
      }
      if (partitions == null) {
        return;
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      while (running) {
        try {
          for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
            long now = System.nanoTime();
            Observed observed = Snapshots.observed(record);
            if (observed != null) {
              onKafka.putIfAbsent(observed.eventId(), now);
            }
          }
        } catch (WakeupException e) {
          return;
        } catch (RuntimeException e) {
          LOG.debug("kafka tail poll failed: {}", e.toString());
        }
      }
    } catch (WakeupException e) {
      LOG.debug("kafka tail woken up to stop");
    }
  }

  private void tailReceiver() {
    Connection connection = null;
    long lastSeq = 0;
    while (running) {
      try {
        if (connection == null) {
          connection = DriverManager.getConnection(receiverJdbcUrl, user, "");
        }
        if (storeRewound) {
          storeRewound = false;
          lastSeq = 0;
        }
        // Store sequences are taken at insert, not at commit: re-read a window below the highest
        // seen so a row that committed late is still picked up (first sighting wins).
        List<Observed> rows = Snapshots.receiverRowsAfter(connection, Math.max(0, lastSeq - 200));
        long now = System.nanoTime();
        for (Observed row : rows) {
          atReceiver.putIfAbsent(row.eventId(), now);
          lastSeq = Math.max(lastSeq, row.position());
        }
      } catch (SQLException e) {
        closeQuietly(connection);
        connection = null;
      }
      pause(250);
    }
    closeQuietly(connection);
  }

  private void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      running = false;
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(Connection connection) {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        LOG.debug("closing receiver connection failed: {}", e.getMessage());
      }
    }
  }
}
