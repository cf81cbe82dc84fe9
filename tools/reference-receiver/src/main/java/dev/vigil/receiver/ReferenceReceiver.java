package dev.vigil.receiver;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.InvalidAlertEventException;
import dev.vigil.contract.UnknownAlertKindException;
import dev.vigil.contract.webhook.WebhookSignature;
import dev.vigil.kit.DatabaseReadiness;
import dev.vigil.kit.db.Database;
import dev.vigil.kit.http.BearerToken;
import dev.vigil.kit.http.Health;
import dev.vigil.kit.http.HttpJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A webhook receiver that does what the notifier asks of receivers: verify the Standard Webhooks
 * signature and timestamp, store each {@code webhook-id} exactly once (its own table, own Flyway
 * history), and answer 2xx only after the row is committed. A repeat with the same body is
 * acknowledged again (200) without a second notification; a repeat with a different body is 409.
 *
 * <p>Answers: 200 stored or duplicate, 200 for a genuine event of a kind it does not know (skipped
 * and counted, see {@link #skippedUnknownKinds()}), 400 not a valid alert event, 401 bad token,
 * signature or stale timestamp, 409 conflicting body. {@link #faults()} injects misbehaviour.
 */
public final class ReferenceReceiver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReferenceReceiver.class);
  private static final int MAX_BODY = 1024 * 1024;

  /**
   * How much of a refused body is read and thrown away before the 413 goes out. A client that sends
   * its whole body before reading the answer (most do; Java's HttpClient does) would otherwise have
   * its connection reset by the unread bytes and never see the 413. Larger bodies are cut off.
   */
  private static final long MAX_DISCARDED = 64L * 1024 * 1024;

  private final ReceiverConfig config;
  private final Database database;
  private final NotificationStore store;
  private final HttpServer server;
  private final ExecutorService executor;
  private final ReceiverFaults faults;
  private final BearerToken token;
  private final DatabaseReadiness readiness;
  private final List<Consumer<ReceivedNotification>> listeners = new CopyOnWriteArrayList<>();
  private final List<ReceivedRequest> requests = new CopyOnWriteArrayList<>();
  private final AtomicReference<Trap> trap = new AtomicReference<>();
  private final AtomicLong skippedUnknownKinds = new AtomicLong();

  private record Trap(String service, Runnable action) {}

  private ReferenceReceiver(ReceiverConfig config, Database database) throws IOException {
    this.config = config;
    this.database = database;
    this.store = new NotificationStore(database);
    this.faults =
        config.get(ReceiverConfig.FAULTS) == null
            ? new ReceiverFaults()
            : ReceiverFaults.parse(config.get(ReceiverConfig.FAULTS));
    String bearer = config.get(ReceiverConfig.TOKEN);
    this.token = bearer == null ? null : new BearerToken(bearer);
    this.readiness =
        new DatabaseReadiness(database.dataSource(), DatabaseReadiness.DEFAULT_TIMEOUT);
    this.executor = Executors.newVirtualThreadPerTaskExecutor();
    this.server = HttpServer.create(new InetSocketAddress(config.httpPort()), 1024);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
  }

  /** Migrates its table, binds the port and starts answering. */
  public static ReferenceReceiver start(ReceiverConfig config) {
    Database database =
        Database.open(
            config.database(16, "receiver", "classpath:db/receiver", "flyway_receiver_history"));
    try {
      ReferenceReceiver receiver = new ReferenceReceiver(config, database);
      receiver.server.start();
      LOG.info("receiver started port={} config={}", receiver.port(), config);
      return receiver;
    } catch (IOException e) {
      database.close();
      throw new UncheckedIOException("cannot bind receiver port " + config.httpPort(), e);
    }
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** Called once per newly stored notification, after it is committed. */
  public void onNotification(Consumer<ReceivedNotification> listener) {
    listeners.add(listener);
  }

  /** Genuine (signed) events skipped because their kind is unknown to this receiver. */
  public long skippedUnknownKinds() {
    return skippedUnknownKinds.get();
  }

  /** Misbehaviour to inject; changes apply to the next requests. */
  public ReceiverFaults faults() {
    return faults;
  }

  /**
   * For tests: runs {@code action} once, inside the next valid webhook request for {@code service},
   * after its notification is stored and before it is answered. Something done here (killing the
   * sender, say) happens while that request is certainly in flight, whatever the timing. Replaces
   * an action not yet run.
   */
  public void onNextRequestFor(String service, Runnable action) {
    trap.set(new Trap(service, action));
  }

  /**
   * Every request seen so far, each logged just before its answer is written: once a client has its
   * answer (or its dropped connection), its request is listed, after every request answered before
   * it was sent.
   */
  public List<ReceivedRequest> requests() {
    return List.copyOf(requests);
  }

  private void handle(HttpExchange exchange) throws IOException {
    Instant arrived = Instant.now();
    String webhookId = exchange.getRequestHeaders().getFirst(WebhookSignature.HEADER_ID);
    try (exchange) {
      Reply reply;
      try {
        reply = answer(exchange, webhookId);
      } catch (RuntimeException e) {
        LOG.warn("receiver error webhook_id={} error=\"{}\"", webhookId, e.getMessage());
        reply = Reply.FAILED;
      }
      // Logged before anything is written: whoever has the answer (or the dropped connection)
      // finds this request in requests(), after every request answered before it.
      requests.add(
          new ReceivedRequest(
              exchange.getRequestMethod(),
              exchange.getRequestURI().getPath(),
              webhookId,
              arrived,
              reply.status()));
      reply.writeTo(exchange);
    }
  }

  /**
   * An answer decided but not yet written. Without a body nothing is written: closing the exchange
   * then drops the connection.
   */
  private record Reply(int status, String body, String retryAfter, String challenge) {
    Reply(int status, String body, String retryAfter) {
      this(status, body, retryAfter, null);
    }

    /**
     * A 401, with the {@code WWW-Authenticate} challenge HTTP requires of one (RFC 9110 §15.5.2):
     * {@code Bearer} when the token is missing or wrong, the webhook signature scheme when the
     * signature is.
     */
    static Reply unauthorized(String body, String scheme) {
      return new Reply(401, body, null, scheme + " realm=\"vigil-reference-receiver\"");
    }

    /** Stored, then the connection dropped: the acknowledgement is lost. */
    static final Reply DROP = new Reply(-1, null, null);

    /** Failed inside the receiver; logged as 500, the connection is dropped. */
    static final Reply FAILED = new Reply(500, null, null);

    void writeTo(HttpExchange exchange) throws IOException {
      if (body == null) {
        return;
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      if (retryAfter != null) {
        exchange.getResponseHeaders().add("Retry-After", retryAfter);
      }
      if (challenge != null) {
        exchange.getResponseHeaders().add("WWW-Authenticate", challenge);
      }
      exchange
          .getResponseHeaders()
          .add("Content-Type", body.startsWith("{") ? "application/json" : "text/plain");
      exchange.sendResponseHeaders(status, bytes.length);
      exchange.getResponseBody().write(bytes);
    }
  }

  private Reply answer(HttpExchange exchange, String webhookId) throws IOException {
    String method = exchange.getRequestMethod();
    if (method.equals("GET") && exchange.getRequestURI().getPath().equals("/health")) {
      Health health = Health.builder().check("database", readiness.answers()).build();
      return new Reply(health.httpStatus(), HttpJson.mapper().writeValueAsString(health), null);
    }
    if (method.equals("GET") && exchange.getRequestURI().getPath().equals("/received")) {
      return received(exchange);
    }
    if (exchange.getRequestURI().getPath().equals("/_faults")) {
      return changeFaults(exchange, method);
    }
    if (!method.equals("POST")) {
      return new Reply(405, "only POST", null);
    }
    if (token != null && !token.matches(exchange.getRequestHeaders().getFirst("Authorization"))) {
      return Reply.unauthorized("missing or wrong bearer token", "Bearer");
    }
    byte[] body = readBody(exchange.getRequestBody());
    if (body == null) {
      return new Reply(413, "body too large", null);
    }
    var headers = exchange.getRequestHeaders();
    WebhookSignature.Verdict verdict =
        WebhookSignature.verify(
            config.secrets(),
            webhookId,
            headers.getFirst(WebhookSignature.HEADER_TIMESTAMP),
            headers.getFirst(WebhookSignature.HEADER_SIGNATURE),
            body,
            Instant.now(),
            config.get(ReceiverConfig.TOLERANCE));
    if (verdict != WebhookSignature.Verdict.VALID) {
      LOG.warn("webhook refused webhook_id={} verdict={}", webhookId, verdict);
      return Reply.unauthorized("signature check failed: " + verdict, "Webhook-Signature");
    }
    AlertEvent event;
    try {
      event = AlertEventJson.read(body);
    } catch (UnknownAlertKindException e) {
      // Kinds are added within a schema version: a genuine event of a kind this receiver does not
      // know is acknowledged (so it is not retried) and counted, not stored.
      long skipped = skippedUnknownKinds.incrementAndGet();
      LOG.info(
          "webhook skipped, unknown kind webhook_id={} kind={} skipped_total={}",
          webhookId,
          e.kind().replaceAll("\\p{Cntrl}", "?"),
          skipped);
      return new Reply(200, "{\"stored\":false,\"skipped\":\"unknown kind\"}", null);
    } catch (InvalidAlertEventException e) {
      return new Reply(400, e.getMessage(), null);
    }
    if (!event.eventId().toString().equals(webhookId)) {
      return new Reply(400, "webhook-id does not match eventId", null);
    }
    Optional<ReceiverFaults.Fault> fault = faults.next(event.service());
    if (fault.isPresent()) {
      Reply early = applyBefore(exchange, fault.get());
      if (early != null) {
        return early;
      }
    }
    NotificationStore.Result result =
        store.store(webhookId, event, new String(body, StandardCharsets.UTF_8));
    if (result == NotificationStore.Result.STORED) {
      ReceivedNotification notification =
          new ReceivedNotification(
              webhookId, event, Instant.now(), headers.getFirst("traceparent"));
      for (Consumer<ReceivedNotification> listener : listeners) {
        try {
          listener.accept(notification);
        } catch (RuntimeException e) {
          LOG.warn("listener failed webhook_id={} error=\"{}\"", webhookId, e.getMessage());
        }
      }
    }
    Trap armed = trap.get();
    if (armed != null
        && armed.service().equals(event.service())
        && trap.compareAndSet(armed, null)) {
      armed.action().run();
    }
    if (fault.isPresent() && fault.get().kind() == ReceiverFaults.Kind.DROP_AFTER_STORE) {
      LOG.info("ack dropped webhook_id={} result={}", webhookId, result);
      return Reply.DROP;
    }
    return switch (result) {
      case STORED, DUPLICATE -> new Reply(200, "{\"stored\":true}", null);
      case CONFLICT -> new Reply(409, "webhook-id seen before with a different body", null);
    };
  }

  /**
   * {@code GET /received}: what was stored, oldest first (see {@link ReceivedQuery}). Only when the
   * receiver requires a bearer token is the same token required here.
   */
  private Reply received(HttpExchange exchange) {
    if (token != null && !token.matches(exchange.getRequestHeaders().getFirst("Authorization"))) {
      return Reply.unauthorized("missing or wrong bearer token", "Bearer");
    }
    ReceivedQuery query;
    try {
      query = ReceivedQuery.parse(exchange.getRequestURI().getRawQuery());
    } catch (ReceivedQuery.BadQuery e) {
      return new Reply(
          400, ReceivedQuery.json(Map.of("field", e.field, "error", e.getMessage())), null);
    }
    try {
      return new Reply(200, ReceivedQuery.json(query.run(database)), null);
    } catch (RuntimeException e) {
      LOG.warn("received list failed error=\"{}\"", e.getMessage());
      return new Reply(
          503, ReceivedQuery.json(Map.of("error", "the receiver's database did not answer")), null);
    }
  }

  /**
   * Fault drills against a receiver in another process: {@code POST /_faults} adds rules in {@link
   * ReceiverFaults#parse} form, {@code DELETE /_faults} clears them. Only when the receiver
   * requires a bearer token is the same token required here.
   */
  private Reply changeFaults(HttpExchange exchange, String method) throws IOException {
    if (token != null && !token.matches(exchange.getRequestHeaders().getFirst("Authorization"))) {
      return Reply.unauthorized("missing or wrong bearer token", "Bearer");
    }
    try {
      switch (method) {
        case "POST" -> {
          byte[] body = readBody(exchange.getRequestBody());
          if (body == null) {
            return new Reply(413, "body too large", null);
          }
          faults.addAll(new String(body, StandardCharsets.UTF_8));
        }
        case "DELETE" -> faults.clear();
        default -> {
          return new Reply(405, "POST or DELETE", null);
        }
      }
    } catch (IllegalArgumentException | dev.vigil.kit.ConfigException e) {
      return new Reply(400, "bad fault rule: " + e.getMessage(), null);
    }
    LOG.info("receiver faults changed method={}", method);
    return new Reply(200, "{\"ok\":true}", null);
  }

  private Reply applyBefore(HttpExchange exchange, ReceiverFaults.Fault fault) {
    return switch (fault.kind()) {
      case STATUS -> new Reply(fault.status(), "injected failure", null);
      case RETRY_AFTER ->
          new Reply(429, "injected rate limit", String.valueOf(fault.delay().toSeconds()));
      case REDIRECT -> {
        exchange.getResponseHeaders().add("Location", fault.location());
        yield new Reply(302, "moved", null);
      }
      case DELAY -> {
        try {
          Thread.sleep(fault.delay());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        yield null;
      }
      case DROP_AFTER_STORE -> null;
    };
  }

  /** The request body, or null when it is over {@link #MAX_BODY} (the rest is read and dropped). */
  private static byte[] readBody(InputStream in) throws IOException {
    byte[] body = in.readNBytes(MAX_BODY + 1);
    if (body.length <= MAX_BODY) {
      return body;
    }
    byte[] discard = new byte[64 * 1024];
    long discarded = 0;
    for (int n; discarded < MAX_DISCARDED && (n = in.read(discard)) >= 0; ) {
      discarded += n;
    }
    return null;
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    store.close();
    database.close();
  }
}
