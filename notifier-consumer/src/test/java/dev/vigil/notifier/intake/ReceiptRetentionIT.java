package dev.vigil.notifier.intake;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.db.Database;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VigilInfraExtension.class)
class ReceiptRetentionIT {

  @Test
  void onlyLongFinishedReceiptsAreDeletedInBatchesSkippingLockedOnes(TestDatabase db)
      throws Exception {
    try (Database database =
        Database.open(
            new Database.Options(
                db.jdbcUrl(),
                db.user(),
                db.password(),
                4,
                "test",
                "classpath:db/notifier",
                "flyway_notifier_history"))) {
      try (Connection connection = db.connect();
          Statement statement = connection.createStatement()) {
        insert(statement, 25, "old-delivered", "DELIVERED", "delivered_at", "40 days");
        insert(statement, 1, "old-skipped", "SKIPPED", "skipped_at", "40 days");
        insert(statement, 1, "young-delivered", "DELIVERED", "delivered_at", "1 day");
        insert(statement, 1, "old-dead", "DEAD", "dead_at", "40 days");
        insert(statement, 1, "old-pending", "PENDING", "available_at", "40 days");
      }
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      ReceiptRetention retention =
          new ReceiptRetention(database, Clock.systemUTC(), Duration.ofDays(30), 10, registry);

      try (Connection holder = db.connect()) {
        // Another transaction holds one old delivered receipt: skipped, not waited for.
        holder.setAutoCommit(false);
        try (Statement statement = holder.createStatement()) {
          statement.execute(
              "select * from notifier_receipt where service = 'old-delivered' limit 1 for update");
        }
        long deleted = CompletableFuture.supplyAsync(retention::runOnce).get(10, TimeUnit.SECONDS);
        assertThat(deleted).as("25 old finished receipts, in batches of 10").isEqualTo(25);
        holder.rollback();
      }

      assertThat(services(db))
          .as("left: the locked one, the young one, and every unfinished one whatever its age")
          .containsExactly("old-dead", "old-delivered", "old-pending", "young-delivered");
      assertThat(registry.counter("vigil.notifier.receipts.trimmed").count()).isEqualTo(25);
      assertThat(retention.runOnce()).as("the locked one, free again").isEqualTo(1);
    }
  }

  @Test
  void closedGroupsGoWithTheirMessagesOpenOnesStay(TestDatabase db) throws Exception {
    try (Database database =
            Database.open(
                new Database.Options(
                    db.jdbcUrl(),
                    db.user(),
                    db.password(),
                    2,
                    "test",
                    "classpath:db/notifier",
                    "flyway_notifier_history"));
        Connection connection = db.connect();
        Statement statement = connection.createStatement()) {
      statement.execute(
          """
          insert into notifier_group (group_id, channel, status, next_at, closed_at)
          values (gen_random_uuid(), 'old', 'CLOSED', now(), now() - interval '40 days'),
                 (gen_random_uuid(), 'young', 'CLOSED', now(), now() - interval '1 day'),
                 (gen_random_uuid(), 'open', 'OPEN', now() - interval '40 days', null)
          """);
      statement.execute(
          """
          insert into notifier_group_message (group_id, seq, event_ids, status)
          select group_id, 1, array[gen_random_uuid()], 'SENT' from notifier_group
          """);
      new ReceiptRetention(
              database, Clock.systemUTC(), Duration.ofDays(30), 10, new SimpleMeterRegistry())
          .runOnce();

      try (ResultSet rows =
          statement.executeQuery(
              "select string_agg(g.channel, ',' order by g.channel), count(m.seq)"
                  + " from notifier_group g left join notifier_group_message m using (group_id)")) {
        rows.next();
        assertThat(rows.getString(1)).isEqualTo("open,young");
        assertThat(rows.getInt(2)).isEqualTo(2);
      }
    }
  }

  private static void insert(
      Statement statement, int rows, String service, String status, String column, String age)
      throws Exception {
    statement.execute(
        """
        insert into notifier_receipt (event_id, service, kind, incident_id, payload, kafka_topic,
                                      kafka_partition, kafka_offset, status, %s)
        select gen_random_uuid(), '%s', 'FAILED', gen_random_uuid(), '{}', 't', 0, g, '%s',
               now() - interval '%s'
          from generate_series(1, %d) g
        """
            .formatted(column, service, status, age, rows));
  }

  private static List<String> services(TestDatabase db) throws Exception {
    List<String> services = new ArrayList<>();
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery("select service from notifier_receipt order by service")) {
      while (rows.next()) {
        services.add(rows.getString(1));
      }
    }
    return services;
  }
}
