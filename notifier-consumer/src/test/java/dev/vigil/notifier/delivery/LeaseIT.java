package dev.vigil.notifier.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.webhook.WebhookSecret;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.db.Database;
import dev.vigil.notifier.internal.ServiceLocks;
import dev.vigil.notifier.webhook.WebhookRoute;
import dev.vigil.notifier.webhook.WebhookRoutes;
import dev.vigil.receiver.ReceivedNotification;
import dev.vigil.receiver.ReceiverConfig;
import dev.vigil.receiver.ReferenceReceiver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VigilInfraExtension.class)
class LeaseIT {
  private static final String SECRET = WebhookSecret.generate();

  @Test
  void workerDyingAfterClaimIsTakenOverAfterLeaseAndItsLateResultIsRefused(TestDatabase db)
      throws Exception {
    try (Database database = open(db);
        ReferenceReceiver receiver = receiver(db)) {
      List<ReceivedNotification> received = new CopyOnWriteArrayList<>();
      receiver.onNotification(received::add);
      AlertEvent event =
          AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "api", Instant.now(), 3, "503");
      insertHead(db, event);

      // a worker claims, then dies without sending or recording anything
      DeliveryStore store = new DeliveryStore(database);
      Claim dead = store.claim(10, Duration.ofMinutes(10)).getFirst();
      assertThat(dead.attempts()).isEqualTo(1);
      assertThat(store.claim(10, Duration.ofSeconds(30))).as("the lease is exclusive").isEmpty();
      // its lease runs out (set here rather than waited for, so no stall can end it early)
      expireLease(db, dead);

      try (Delivery delivery = delivery(database, receiver)) {
        delivery.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> received.size() == 1);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> "DELIVERED 2".equals(row(db, event.eventId(), "status || ' ' || attempts")));
      }
      assertThat(row(db, event.eventId(), "claim_token")).isNull();

      // the old worker wakes up and reports a failure with its stale token: refused
      var late = new DeliveryStore.Result(dead, DeliveryStore.Result.Kind.DEAD, 503, "late", null);
      // refused results are named by their claim token (one event has a row per channel)
      assertThat(store.record(List.of(late))).containsExactly(dead.token());
      assertThat(row(db, event.eventId(), "status")).isEqualTo("DELIVERED");
    }
  }

  @Test
  void expiredLeaseGivesANewTokenAndOnlyTheNewHolderCanRecord(TestDatabase db) throws Exception {
    try (Database database = open(db)) {
      AlertEvent event =
          AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "api", Instant.now(), 3, "503");
      insertHead(db, event);
      DeliveryStore store = new DeliveryStore(database);
      // here the lease really runs out: it is the only way the row becomes due again
      Claim first = store.claim(1, Duration.ofMillis(300)).getFirst();
      Claim second =
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> store.claim(1, Duration.ofSeconds(30)), claims -> !claims.isEmpty())
              .getFirst();
      assertThat(second.token()).isNotEqualTo(first.token());
      assertThat(second.attempts()).isEqualTo(2);

      var stale =
          new DeliveryStore.Result(first, DeliveryStore.Result.Kind.DELIVERED, 200, null, null);
      assertThat(store.record(List.of(stale))).containsExactly(first.token());
      assertThat(row(db, event.eventId(), "status")).isEqualTo("PENDING");
      var current =
          new DeliveryStore.Result(second, DeliveryStore.Result.Kind.DELIVERED, 200, null, null);
      assertThat(store.record(List.of(current))).isEmpty();
      assertThat(row(db, event.eventId(), "status")).isEqualTo("DELIVERED");
    }
  }

  @Test
  void chainedClaimLeaseRunsFromAfterTheWaitForTheServiceLock(TestDatabase db) throws Exception {
    try (Database database = open(db)) {
      AlertEvent down =
          AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "api", Instant.now(), 3, "503");
      AlertEvent up =
          AlertEvent.recovered(
              UUID.randomUUID(), down.incidentId(), "api", Instant.now(), 3, "503", Instant.now());
      insertHead(db, down);
      insert(db, up, false);
      DeliveryStore store = new DeliveryStore(database);
      Claim claim = store.claim(1, Duration.ofMinutes(2)).getFirst();
      Duration lease = Duration.ofSeconds(1);
      String released;
      CompletableFuture<DeliveryStore.Recorded> recording;
      try (Connection holder = db.connect()) {
        holder.setAutoCommit(false);
        ServiceLocks.lock(holder, List.of("api"));
        var delivered =
            new DeliveryStore.Result(claim, DeliveryStore.Result.Kind.DELIVERED, 200, null, null);
        recording = CompletableFuture.supplyAsync(() -> store.record(List.of(delivered), 1, lease));
        // the recorder waits on the service lock for longer than the whole lease
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> waitingOnAdvisoryLockFor(db, lease.multipliedBy(2)));
        try (PreparedStatement now = holder.prepareStatement("select clock_timestamp()::text");
            ResultSet rows = now.executeQuery()) {
          rows.next();
          released = rows.getString(1);
        }
        holder.commit();
      }
      DeliveryStore.Recorded recorded = recording.get(60, TimeUnit.SECONDS);
      assertThat(recorded.next()).extracting(Claim::eventId).containsExactly(up.eventId());
      assertThat(
              row(
                  db,
                  up.eventId(),
                  "available_at >= '" + released + "'::timestamptz + interval '1 second'"))
          .as("the lease of the chained claim starts once the lock is held")
          .isEqualTo("t");
    }
  }

  private static boolean waitingOnAdvisoryLockFor(TestDatabase db, Duration wait) throws Exception {
    try (Connection connection = db.connect();
        PreparedStatement query =
            connection.prepareStatement(
                """
                select count(*) from pg_stat_activity
                 where wait_event_type = 'Lock' and wait_event = 'advisory'
                   and clock_timestamp() - xact_start > ? * interval '1 millisecond'
                """)) {
      query.setLong(1, wait.toMillis());
      try (ResultSet rows = query.executeQuery()) {
        rows.next();
        return rows.getLong(1) > 0;
      }
    }
  }

  /** Ends {@code claim}'s lease now: the row becomes due again, its token still set. */
  static void expireLease(TestDatabase db, Claim claim) throws Exception {
    try (Connection connection = db.connect();
        PreparedStatement update =
            connection.prepareStatement(
                "update notifier_receipt set available_at = now() - interval '1 second'"
                    + " where event_id = ? and claim_token = ?")) {
      update.setObject(1, claim.eventId());
      update.setObject(2, claim.token());
      assertThat(update.executeUpdate()).as("the claim is still held").isEqualTo(1);
    }
  }

  static Database open(TestDatabase db) {
    return Database.open(
        new Database.Options(
            db.jdbcUrl(),
            db.user(),
            db.password(),
            4,
            "test",
            "classpath:db/notifier",
            "flyway_notifier_history"));
  }

  static ReferenceReceiver receiver(TestDatabase db) {
    return ReferenceReceiver.start(
        ReceiverConfig.onAnyPort(db.jdbcUrl(), db.user(), db.password(), SECRET));
  }

  static Delivery delivery(Database database, ReferenceReceiver receiver) {
    WebhookRoute route =
        new WebhookRoute(
            "*",
            URI.create("http://localhost:" + receiver.port() + "/hook"),
            null,
            WebhookSecret.parseList(SECRET),
            true);
    return new Delivery(
        database,
        new WebhookRoutes(route, List.of()),
        // timeouts and lease far beyond any answer's time: a slow answer is no extra attempt
        DeliveryOptions.builder()
            .workers(4)
            .batchSize(64)
            .maxAttempts(5)
            .lease(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(20))
            .connectTimeout(Duration.ofSeconds(10))
            .readTimeout(Duration.ofSeconds(60))
            .backoff(Duration.ofMillis(20), Duration.ofMillis(100))
            .retryAfterMax(Duration.ofSeconds(5))
            .build(),
        new SimpleMeterRegistry());
  }

  /** A receipt as the intake stores it for a service with nothing else pending. */
  static void insertHead(TestDatabase db, AlertEvent event) throws Exception {
    insert(db, event, true);
  }

  static void insert(TestDatabase db, AlertEvent event, boolean head) throws Exception {
    try (Connection connection = db.connect();
        PreparedStatement insert =
            connection.prepareStatement(
                """
                insert into notifier_receipt (event_id, service, kind, incident_id, payload,
                  kafka_topic, kafka_partition, kafka_offset, head)
                values (?, ?, ?, ?, ?, 't', 0, 0, ?)
                """)) {
      insert.setObject(1, event.eventId());
      insert.setString(2, event.service());
      insert.setString(3, event.kind().name());
      insert.setObject(4, event.incidentId());
      insert.setString(5, AlertEventJson.write(event));
      insert.setBoolean(6, head);
      insert.executeUpdate();
    }
  }

  static String row(TestDatabase db, UUID eventId, String expression) throws Exception {
    try (Connection connection = db.connect();
        PreparedStatement select =
            connection.prepareStatement(
                "select " + expression + " from notifier_receipt where event_id = ?")) {
      select.setObject(1, eventId);
      try (ResultSet rows = select.executeQuery()) {
        rows.next();
        return rows.getString(1);
      }
    }
  }
}
