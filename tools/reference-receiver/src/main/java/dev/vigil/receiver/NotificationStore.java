package dev.vigil.receiver;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.InvalidAlertEventException;
import dev.vigil.kit.db.Database;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiver's de-duplication: each webhook-id is stored once; a repeat with the same body is
 * acknowledged again and counted ({@code deliveries}), a repeat with a different body is a
 * conflict.
 *
 * <p>Group commit: concurrent requests are written together by one writer thread in one transaction
 * ({@code insert … on conflict do nothing}), and each request is answered only after that
 * transaction committed.
 */
final class NotificationStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NotificationStore.class);
  private static final int MAX_GROUP = 256;

  enum Result {
    STORED,
    DUPLICATE,
    CONFLICT
  }

  private record Pending(
      String webhookId, AlertEvent event, String body, CompletableFuture<Result> result) {}

  private static final String INSERT =
      """
      insert into received_webhook (webhook_id, service, kind, event_id, body)
      select u.id, u.service, u.kind, u.event_id, u.body
        from unnest(?::text[], ?::text[], ?::text[], ?::uuid[], ?::text[]) with ordinality
             as u(id, service, kind, event_id, body, ord)
       order by u.ord
      on conflict (webhook_id) do nothing
      returning webhook_id
      """;

  private static final String STORED_BODY =
      "select body from received_webhook where webhook_id = ?";

  private static final String COUNT_REPEAT =
      "update received_webhook set deliveries = deliveries + 1 where webhook_id = ?";

  private final Database database;
  private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private final Thread writer;
  private volatile boolean running = true;

  NotificationStore(Database database) {
    this.database = database;
    this.writer = Thread.ofPlatform().name("receiver-store").daemon().start(this::run);
  }

  /** Stores and commits before returning, so a 2xx is only ever sent for a durable row. */
  Result store(String webhookId, AlertEvent event, String body) {
    Pending pending = new Pending(webhookId, event, body, new CompletableFuture<>());
    queue.add(pending);
    try {
      return pending.result().get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while storing " + webhookId, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("storing " + webhookId + " failed: " + e.getCause(), e);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("storing " + webhookId + " timed out", e);
    }
  }

  private void run() {
    List<Pending> group = new ArrayList<>();
    while (running) {
      try {
        Pending first = queue.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        group.add(first);
        queue.drainTo(group, MAX_GROUP - 1);
        try {
          List<Result> results = database.inTransaction("storing webhooks", c -> write(c, group));
          for (int i = 0; i < group.size(); i++) {
            group.get(i).result().complete(results.get(i));
          }
        } catch (RuntimeException e) {
          LOG.warn("receiver store failed count={} error=\"{}\"", group.size(), e.getMessage());
          group.forEach(p -> p.result().completeExceptionally(e));
        }
        group.clear();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static List<Result> write(Connection c, List<Pending> group) throws SQLException {
    int n = group.size();
    String[] ids = new String[n];
    String[] services = new String[n];
    String[] kinds = new String[n];
    UUID[] events = new UUID[n];
    String[] bodies = new String[n];
    for (int i = 0; i < n; i++) {
      Pending p = group.get(i);
      ids[i] = p.webhookId();
      services[i] = p.event().service();
      kinds[i] = p.event().kind().name();
      events[i] = p.event().eventId();
      bodies[i] = p.body();
    }
    Set<String> inserted = new HashSet<>();
    try (PreparedStatement insert = c.prepareStatement(INSERT)) {
      insert.setArray(1, c.createArrayOf("text", ids));
      insert.setArray(2, c.createArrayOf("text", services));
      insert.setArray(3, c.createArrayOf("text", kinds));
      insert.setArray(4, c.createArrayOf("uuid", events));
      insert.setArray(5, c.createArrayOf("text", bodies));
      try (ResultSet rows = insert.executeQuery()) {
        while (rows.next()) {
          inserted.add(rows.getString(1));
        }
      }
    }
    List<Result> results = new ArrayList<>(n);
    for (Pending p : group) {
      // the first of several requests with one id in this group is the one that stored it
      results.add(inserted.remove(p.webhookId()) ? Result.STORED : compare(c, p));
    }
    return results;
  }

  /**
   * A repeat is a duplicate when it carries the same event as the stored body. Compared as parsed
   * events in Java, not as {@code jsonb}: PostgreSQL refuses {@code \u0000} in jsonb, which valid
   * events may hold in their text.
   */
  private static Result compare(Connection c, Pending p) throws SQLException {
    try (PreparedStatement stored = c.prepareStatement(STORED_BODY)) {
      stored.setString(1, p.webhookId());
      try (ResultSet rows = stored.executeQuery()) {
        if (!rows.next() || !sameEvent(rows.getString(1), p.event())) {
          return Result.CONFLICT;
        }
      }
    }
    try (PreparedStatement repeat = c.prepareStatement(COUNT_REPEAT)) {
      repeat.setString(1, p.webhookId());
      repeat.executeUpdate();
    }
    return Result.DUPLICATE;
  }

  private static boolean sameEvent(String storedBody, AlertEvent event) {
    try {
      return AlertEventJson.read(storedBody.getBytes(StandardCharsets.UTF_8)).equals(event);
    } catch (InvalidAlertEventException e) {
      return false;
    }
  }

  @Override
  public void close() {
    running = false;
    writer.interrupt();
    Pending pending;
    while ((pending = queue.poll()) != null) {
      pending.result().completeExceptionally(new IllegalStateException("receiver closing"));
    }
  }
}
