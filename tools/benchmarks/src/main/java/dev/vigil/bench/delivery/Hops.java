package dev.vigil.bench.delivery;

import dev.vigil.bench.outbox.OutboxRun;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * Where an alert's time goes after the broker: for each event committed in the window, the
 * notifier's receipt row says when intake stored it ({@code received_at}, the receipt transaction's
 * start) and when its delivery was recorded ({@code delivered_at}); the receiver says when the
 * webhook arrived. All on this machine's one clock.
 *
 * <ul>
 *   <li>{@code receipt}: outbox commit → receipt stored (relay, Kafka, the notifier's read);
 *   <li>{@code send}: receipt stored → webhook at the receiver (claim, sign, send);
 *   <li>{@code record}: webhook at the receiver → delivery recorded (how long the head of line
 *       stays claimed after the answer, so the service's next event waits at least this long).
 * </ul>
 */
record Hops(Histogram receipt, Histogram send, Histogram record, long unmatched) {
  private static final String ROWS =
      "select event_id, received_at, delivered_at from notifier_receipt"
          + " where channel = 'webhook' and event_id = any(?)";

  static Hops of(DataSource notifierDb, Map<UUID, Long> committed, Map<UUID, Long> arrived) {
    Hops hops =
        new Hops(
            new Histogram(3_600_000_000L, 3),
            new Histogram(3_600_000_000L, 3),
            new Histogram(3_600_000_000L, 3),
            0);
    long unmatched = 0;
    try (Connection connection = notifierDb.getConnection();
        PreparedStatement statement = connection.prepareStatement(ROWS)) {
      statement.setArray(1, connection.createArrayOf("uuid", committed.keySet().toArray()));
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          UUID id = rows.getObject(1, UUID.class);
          Long arrival = arrived.get(id);
          Timestamp delivered = rows.getTimestamp(3);
          if (arrival == null || delivered == null) {
            unmatched++;
            continue;
          }
          long received = micros(rows.getTimestamp(2));
          hops.receipt().recordValue(Math.max(0, received - committed.get(id)));
          hops.send().recordValue(Math.max(0, arrival - received));
          hops.record().recordValue(Math.max(0, micros(delivered) - arrival));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("reading the notifier's receipts failed", e);
    }
    return new Hops(hops.receipt(), hops.send(), hops.record(), unmatched);
  }

  Map<String, Double> figures() {
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("receipt_p50_ms", OutboxRun.ms(receipt, 50));
    m.put("receipt_p99_ms", OutboxRun.ms(receipt, 99));
    m.put("send_p50_ms", OutboxRun.ms(send, 50));
    m.put("send_p99_ms", OutboxRun.ms(send, 99));
    m.put("record_p50_ms", OutboxRun.ms(record, 50));
    m.put("record_p99_ms", OutboxRun.ms(record, 99));
    m.put("hops_unmatched", (double) unmatched);
    return m;
  }

  private static long micros(Timestamp t) {
    return t.getTime() / 1000 * 1_000_000L + t.getNanos() / 1000;
  }
}
