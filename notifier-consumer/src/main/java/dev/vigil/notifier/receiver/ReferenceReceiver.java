package dev.vigil.notifier.receiver;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.InvalidAlertEventException;
import dev.vigil.notifier.internal.Database;
import dev.vigil.notifier.webhook.WebhookSignature;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A webhook receiver that does what the notifier asks of receivers: verify the Standard Webhooks
 * signature and timestamp, store each {@code webhook-id} exactly once (its own table, own Flyway
 * history), and answer 2xx only after the row is committed. A repeat with the same body is
 * acknowledged again (200) without a second notification; a repeat with a different body is 409.
 *
 * <p>Answers: 200 stored or duplicate, 400 not a valid alert event, 401 bad token, signature or
 * stale timestamp, 409 conflicting body. {@link #faults()} injects misbehaviour.
 */
public final class ReferenceReceiver implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReferenceReceiver.class);
  private static final int MAX_BODY = 1024 * 1024;

  private final ReceiverConfig config;
  private final Database database;
  private final NotificationStore store;
  private final HttpServer server;
  private final ExecutorService executor;
  private final ReceiverFaults faults;
  private final List<Consumer<ReceivedNotification>> listeners = new CopyOnWriteArrayList<>();
  private final List<ReceivedRequest> requests = new CopyOnWriteArrayList<>();

  private ReferenceReceiver(ReceiverConfig config, Database database) throws IOException {
    this.config = config;
    this.database = database;
    this.store = new NotificationStore(database);
    this.faults =
        config.faults() == null ? new ReceiverFaults() : ReceiverFaults.parse(config.faults());
    this.executor = Executors.newVirtualThreadPerTaskExecutor();
    this.server = HttpServer.create(new InetSocketAddress(config.httpPort()), 1024);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
  }

  /** Migrates its table, binds the port and starts answering. */
  public static ReferenceReceiver start(ReceiverConfig config) {
    Database database =
        Database.open(
            config.dbUrl(),
            config.dbUser(),
            config.dbPassword(),
            16,
            "receiver",
            "classpath:db/receiver",
            "flyway_receiver_history");
    try {
      ReferenceReceiver receiver = new ReferenceReceiver(config, database);
      receiver.server.start();
      log.info("event=receiver_started port={} config={}", receiver.port(), config);
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

  /** Misbehaviour to inject; changes apply to the next requests. */
  public ReceiverFaults faults() {
    return faults;
  }

  /** Every request seen so far, in arrival order. */
  public List<ReceivedRequest> requests() {
    return List.copyOf(requests);
  }

  private void handle(HttpExchange exchange) throws IOException {
    Instant arrived = Instant.now();
    String webhookId = exchange.getRequestHeaders().getFirst(WebhookSignature.HEADER_ID);
    int status;
    try (exchange) {
      status = answer(exchange, webhookId);
    } catch (RuntimeException e) {
      log.warn("event=receiver_error webhook_id={} error=\"{}\"", webhookId, e.getMessage());
      status = 500;
    }
    requests.add(
        new ReceivedRequest(
            exchange.getRequestMethod(),
            exchange.getRequestURI().getPath(),
            webhookId,
            arrived,
            status));
  }

  private int answer(HttpExchange exchange, String webhookId) throws IOException {
    String method = exchange.getRequestMethod();
    if (method.equals("GET") && exchange.getRequestURI().getPath().equals("/health")) {
      return respond(exchange, 200, "{\"status\":\"UP\"}", null);
    }
    if (exchange.getRequestURI().getPath().equals("/_faults")) {
      return changeFaults(exchange, method);
    }
    if (!method.equals("POST")) {
      return respond(exchange, 405, "only POST", null);
    }
    if (config.bearerToken() != null && !tokenMatches(exchange)) {
      return respond(exchange, 401, "missing or wrong bearer token", null);
    }
    byte[] body = readBody(exchange.getRequestBody());
    if (body == null) {
      return respond(exchange, 413, "body too large", null);
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
            config.tolerance());
    if (verdict != WebhookSignature.Verdict.VALID) {
      log.warn("event=webhook_refused webhook_id={} verdict={}", webhookId, verdict);
      return respond(exchange, 401, "signature check failed: " + verdict, null);
    }
    AlertEvent event;
    try {
      event = AlertEventJson.read(body);
    } catch (InvalidAlertEventException e) {
      return respond(exchange, 400, e.getMessage(), null);
    }
    if (!event.eventId().toString().equals(webhookId)) {
      return respond(exchange, 400, "webhook-id does not match eventId", null);
    }
    Optional<ReceiverFaults.Fault> fault = faults.next(event.service());
    if (fault.isPresent()) {
      Integer early = applyBefore(exchange, fault.get());
      if (early != null) {
        return early;
      }
    }
    NotificationStore.Result result =
        store.store(webhookId, event, new String(body, StandardCharsets.UTF_8));
    if (result == NotificationStore.Result.STORED) {
      ReceivedNotification notification = new ReceivedNotification(webhookId, event, Instant.now());
      for (Consumer<ReceivedNotification> listener : listeners) {
        try {
          listener.accept(notification);
        } catch (RuntimeException e) {
          log.warn("event=listener_failed webhook_id={} error=\"{}\"", webhookId, e.getMessage());
        }
      }
    }
    if (fault.isPresent() && fault.get().kind() == ReceiverFaults.Kind.DROP_AFTER_STORE) {
      log.info("event=ack_dropped webhook_id={} result={}", webhookId, result);
      return -1; // closing the exchange without a response drops the connection
    }
    return switch (result) {
      case STORED, DUPLICATE -> respond(exchange, 200, "{\"stored\":true}", null);
      case CONFLICT -> respond(exchange, 409, "webhook-id seen before with a different body", null);
    };
  }

  /**
   * Fault drills against a receiver in another process: {@code POST /_faults} adds rules in {@link
   * ReceiverFaults#parse} form, {@code DELETE /_faults} clears them. Only when the receiver
   * requires a bearer token is the same token required here.
   */
  private int changeFaults(HttpExchange exchange, String method) throws IOException {
    if (config.bearerToken() != null && !tokenMatches(exchange)) {
      return respond(exchange, 401, "missing or wrong bearer token", null);
    }
    try {
      switch (method) {
        case "POST" -> {
          byte[] body = readBody(exchange.getRequestBody());
          faults.addAll(body == null ? "" : new String(body, StandardCharsets.UTF_8));
        }
        case "DELETE" -> faults.clear();
        default -> {
          return respond(exchange, 405, "POST or DELETE", null);
        }
      }
    } catch (IllegalArgumentException | dev.vigil.kit.ConfigException e) {
      return respond(exchange, 400, "bad fault rule: " + e.getMessage(), null);
    }
    log.info("event=receiver_faults_changed method={}", method);
    return respond(exchange, 200, "{\"ok\":true}", null);
  }

  private Integer applyBefore(HttpExchange exchange, ReceiverFaults.Fault fault)
      throws IOException {
    return switch (fault.kind()) {
      case STATUS -> respond(exchange, fault.status(), "injected failure", null);
      case RETRY_AFTER ->
          respond(exchange, 429, "injected rate limit", String.valueOf(fault.delay().toSeconds()));
      case REDIRECT -> {
        exchange.getResponseHeaders().add("Location", fault.location());
        yield respond(exchange, 302, "moved", null);
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

  private boolean tokenMatches(HttpExchange exchange) {
    String header = exchange.getRequestHeaders().getFirst("Authorization");
    String expected = "Bearer " + config.bearerToken();
    return header != null
        && MessageDigest.isEqual(
            expected.getBytes(StandardCharsets.UTF_8), header.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] readBody(InputStream in) throws IOException {
    byte[] body = in.readNBytes(MAX_BODY + 1);
    return body.length > MAX_BODY ? null : body;
  }

  private static int respond(HttpExchange exchange, int status, String body, String retryAfter)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    if (retryAfter != null) {
      exchange.getResponseHeaders().add("Retry-After", retryAfter);
    }
    exchange
        .getResponseHeaders()
        .add("Content-Type", body.startsWith("{") ? "application/json" : "text/plain");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    return status;
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    store.close();
    database.close();
  }
}
