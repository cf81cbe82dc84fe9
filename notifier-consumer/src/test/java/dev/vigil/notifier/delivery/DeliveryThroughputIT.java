package dev.vigil.notifier.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.db.Database;
import dev.vigil.receiver.ReferenceReceiver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A backlog of receipts over many services, delivered by several workers to the reference receiver:
 * everything arrives once and every service's order holds. The rate is logged for the report, not
 * asserted (timing belongs to the benchmark).
 */
@ExtendWith(VigilInfraExtension.class)
class DeliveryThroughputIT {
  private static final Logger LOG = LoggerFactory.getLogger(DeliveryThroughputIT.class);
  // small by default to keep the suite fast; raise for a measurement, e.g.
  // -Dvigil.throughput.services=200 -Dvigil.throughput.perService=50
  private static final int SERVICES = Integer.getInteger("vigil.throughput.services", 100);
  private static final int PER_SERVICE = Integer.getInteger("vigil.throughput.perService", 20);

  @Test
  void backlogOverManyServicesIsDeliveredOnceInPerServiceOrder(TestDatabase db) throws Exception {
    int total = SERVICES * PER_SERVICE;
    try (Database database = LeaseIT.open(db);
        ReferenceReceiver receiver = LeaseIT.receiver(db)) {
      AtomicInteger stored = new AtomicInteger();
      receiver.onNotification(n -> stored.incrementAndGet());
      insertBacklog(db);
      assertThat(claimPlan(db))
          .as("claims read the due-heads index, not the table")
          .contains("notifier_receipt_due_heads")
          .doesNotContain("Seq Scan");
      long started = System.nanoTime();
      Duration cpuBefore = jvmCpu();
      try (Delivery delivery = LeaseIT.delivery(database, receiver)) {
        delivery.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> stored.get() == total);
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      Duration cpu = jvmCpu().minus(cpuBefore);
      LOG.info(
          "throughput deliveries={} services={} seconds={} per_second={} requests={}"
              + " jvm_cpu_ms_per_delivery={} load_average={}",
          total,
          SERVICES,
          String.format("%.2f", seconds),
          String.format("%.0f", total / seconds),
          receiver.requests().size(),
          String.format("%.3f", cpu.toNanos() / 1e6 / total),
          java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      // retries (timeouts on a loaded machine) may repeat requests, never stored notifications
      assertThat(receiver.requests()).hasSizeGreaterThanOrEqualTo(total);
      assertThat(stored.get()).isEqualTo(total);
      assertThat(orderBroken(db)).isZero();
    }
  }

  private static String claimPlan(TestDatabase db) throws Exception {
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("analyze notifier_receipt");
      StringBuilder plan = new StringBuilder();
      try (ResultSet rows =
          statement.executeQuery(
              """
              explain select event_id from notifier_receipt
               where head and status = 'PENDING' and available_at <= now()
               order by available_at limit 64 for update skip locked
              """)) {
        while (rows.next()) {
          plan.append(rows.getString(1)).append('\n');
        }
      }
      return plan.toString();
    }
  }

  private static Duration jvmCpu() {
    return ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
  }

  private static void insertBacklog(TestDatabase db) throws Exception {
    try (Connection connection = db.connect();
        PreparedStatement insert =
            connection.prepareStatement(
                """
                insert into notifier_receipt (event_id, service, kind, incident_id, payload,
                  kafka_topic, kafka_partition, kafka_offset)
                values (?, ?, ?, ?, ?, 't', 0, ?)
                """)) {
      connection.setAutoCommit(false);
      long offset = 0;
      for (int round = 0; round < PER_SERVICE; round++) {
        for (int s = 0; s < SERVICES; s++) {
          AlertEvent event =
              AlertEvent.failed(
                  UUID.randomUUID(), UUID.randomUUID(), "svc-" + s, Instant.now(), 3, "down");
          insert.setObject(1, event.eventId());
          insert.setString(2, event.service());
          insert.setString(3, event.kind().name());
          insert.setObject(4, event.incidentId());
          insert.setString(5, AlertEventJson.write(event));
          insert.setLong(6, offset++);
          insert.addBatch();
        }
      }
      insert.executeBatch();
      try (Statement statement = connection.createStatement()) {
        statement.execute(
            """
            update notifier_receipt set head = true where event_id in (
              select distinct on (service) event_id from notifier_receipt order by service, seq)
            """);
      }
      connection.commit();
    }
  }

  /** Services whose received order differs from their receipt order. */
  private static int orderBroken(TestDatabase db) throws Exception {
    Map<String, List<String>> sent = byService(db, "notifier_receipt", "event_id::text");
    Map<String, List<String>> received = byService(db, "received_webhook", "webhook_id");
    int broken = 0;
    for (var entry : sent.entrySet()) {
      if (!entry.getValue().equals(received.get(entry.getKey()))) {
        broken++;
      }
    }
    return broken;
  }

  private static Map<String, List<String>> byService(TestDatabase db, String table, String id)
      throws Exception {
    Map<String, List<String>> result = new HashMap<>();
    try (Connection connection = db.connect();
        ResultSet rows =
            connection
                .createStatement()
                .executeQuery("select service, " + id + " from " + table + " order by seq")) {
      while (rows.next()) {
        result.computeIfAbsent(rows.getString(1), k -> new ArrayList<>()).add(rows.getString(2));
      }
    }
    return result;
  }
}
