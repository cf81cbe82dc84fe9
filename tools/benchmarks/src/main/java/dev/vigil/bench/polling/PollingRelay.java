package dev.vigil.bench.polling;

import dev.vigil.contract.AlertTopic;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The polling relay of the seed chapter, generalised to a batch: one worker that, every {@code
 * pollDelay} (a fixed delay after each poll, like {@code @Scheduled(fixedDelay)}; zero = as fast as
 * it can), claims up to {@code batch} rows in one short transaction ({@code FOR UPDATE SKIP
 * LOCKED}, a 30 s lease and a random claim token), publishes them to Kafka with acks=all, waits for
 * every acknowledgement, then marks them done in a second transaction — only if the lease still
 * holds. A crash between publish and mark repeats the batch (at-least-once), as with Vigil's relay.
 */
final class PollingRelay implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PollingRelay.class);

  private static final String CLAIM =
      """
      with candidate as (
          select id from polling_outbox
          where status = 'NEW' and (locked_until is null or locked_until <= clock_timestamp())
          order by created_at
          limit ?
          for update skip locked
      )
      update polling_outbox p
      set locked_until = clock_timestamp() + interval '30 seconds', claim_token = ?
      from candidate
      where p.id = candidate.id
      returning p.id, p.aggregateid, p.type, p.payload::text, p.incident_id, p.schema_version,
                p.created_at
      """;

  private static final String MARK_DONE =
      """
      update polling_outbox
      set status = 'DONE', published_at = clock_timestamp(), locked_until = null
      where id = any (?) and claim_token = ? and locked_until > clock_timestamp()
      """;

  private final DataSource db;
  private final Producer<String, String> producer;
  private final String topic;
  private final int batch;
  private final Duration pollDelay;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong published = new AtomicLong();
  private final Thread worker;

  private record Row(
      UUID id,
      String service,
      String type,
      String payload,
      UUID incident,
      int version,
      Timestamp createdAt) {}

  PollingRelay(
      DataSource db,
      Producer<String, String> producer,
      String topic,
      int batch,
      Duration pollDelay) {
    this.db = db;
    this.producer = producer;
    this.topic = topic;
    this.batch = batch;
    this.pollDelay = pollDelay;
    this.worker = Thread.ofPlatform().name("polling-relay").start(this::loop);
  }

  private void loop() {
    try (Connection c = db.getConnection()) {
      c.setAutoCommit(false);
      while (running.get()) {
        UUID token = UUID.randomUUID();
        List<Row> claimed = claim(c, token);
        if (!claimed.isEmpty() && publish(claimed)) {
          markDone(c, claimed, token);
        }
        if (!pollDelay.isZero()) {
          Thread.sleep(pollDelay);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (SQLException | RuntimeException e) {
      if (running.get()) {
        LOG.error("polling relay stopped on an error published={}", published.get(), e);
      }
    }
  }

  private List<Row> claim(Connection c, UUID token) throws SQLException {
    List<Row> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(CLAIM)) {
      ps.setInt(1, batch);
      ps.setObject(2, token);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(
              new Row(
                  rs.getObject(1, UUID.class),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getObject(5, UUID.class),
                  rs.getInt(6),
                  rs.getTimestamp(7)));
        }
      }
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw e;
    }
    rows.sort(Comparator.comparing(Row::createdAt)); // RETURNING does not keep the claim order
    return rows;
  }

  private boolean publish(List<Row> rows) {
    List<Future<RecordMetadata>> acks = new ArrayList<>(rows.size());
    for (Row row : rows) {
      ProducerRecord<String, String> record =
          new ProducerRecord<>(topic, row.service(), row.payload());
      record.headers().add(AlertTopic.HEADER_EVENT_ID, utf8(row.id().toString()));
      record.headers().add(AlertTopic.HEADER_KIND, utf8(row.type()));
      record.headers().add(AlertTopic.HEADER_INCIDENT_ID, utf8(row.incident().toString()));
      record.headers().add(AlertTopic.HEADER_SCHEMA_VERSION, utf8(String.valueOf(row.version())));
      acks.add(producer.send(record));
    }
    try {
      for (Future<RecordMetadata> ack : acks) {
        ack.get();
      }
      published.addAndGet(rows.size());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (java.util.concurrent.ExecutionException e) {
      // The lease expires and another poll publishes the rows again (at-least-once).
      LOG.warn("publish failed rows={} reason={}", rows.size(), e.getCause().toString());
      return false;
    }
  }

  private void markDone(Connection c, List<Row> rows, UUID token) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(MARK_DONE)) {
      Array ids = c.createArrayOf("uuid", rows.stream().map(Row::id).toArray());
      ps.setArray(1, ids);
      ps.setObject(2, token);
      int marked = ps.executeUpdate();
      c.commit();
      if (marked != rows.size()) {
        LOG.warn("lease lost before marking done claimed={} marked={}", rows.size(), marked);
      }
    } catch (SQLException e) {
      c.rollback();
      throw e;
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  long published() {
    return published.get();
  }

  @Override
  public void close() {
    running.set(false); // not interrupt(): that could break the JDBC connection mid-call
    try {
      worker.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
