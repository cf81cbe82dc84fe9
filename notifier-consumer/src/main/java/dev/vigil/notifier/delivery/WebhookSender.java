package dev.vigil.notifier.delivery;

import dev.vigil.notifier.webhook.WebhookRoute;
import dev.vigil.notifier.webhook.WebhookRoutes;
import dev.vigil.notifier.webhook.WebhookSignature;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Sends one claimed receipt as a signed POST on a virtual thread, through one pooled keep-alive
 * {@link Http1Client}: HTTP/1.1, redirects never followed (a 3xx is an outcome, its Location is
 * never requested), connect and response timeouts. Never throws: every failure becomes an {@link
 * Outcome}.
 */
final class WebhookSender implements AutoCloseable {
  private final WebhookRoutes routes;
  private final ExecutorService executor;
  private final Http1Client client;

  WebhookSender(WebhookRoutes routes, Duration connectTimeout, Duration readTimeout) {
    this.routes = routes;
    this.executor = Executors.newVirtualThreadPerTaskExecutor();
    this.client = new Http1Client(connectTimeout, readTimeout);
  }

  CompletableFuture<Outcome> send(Claim claim) {
    try {
      return CompletableFuture.supplyAsync(() -> sendNow(claim), executor);
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(ofFailure(e));
    }
  }

  private Outcome sendNow(Claim claim) {
    WebhookRoute route = routes.routeFor(claim.service());
    byte[] body = claim.payload().getBytes(StandardCharsets.UTF_8);
    String id = claim.eventId().toString();
    long timestamp = Instant.now().getEpochSecond();
    List<Map.Entry<String, String>> headers = new ArrayList<>(8);
    headers.add(Map.entry("Content-Type", "application/json"));
    headers.add(Map.entry("User-Agent", "vigil-notifier"));
    headers.add(Map.entry("Idempotency-Key", id));
    headers.add(Map.entry(WebhookSignature.HEADER_ID, id));
    headers.add(Map.entry(WebhookSignature.HEADER_TIMESTAMP, Long.toString(timestamp)));
    headers.add(
        Map.entry(
            WebhookSignature.HEADER_SIGNATURE,
            WebhookSignature.sign(route.secrets(), id, timestamp, body)));
    if (route.bearerToken() != null) {
      headers.add(Map.entry("Authorization", "Bearer " + route.bearerToken()));
    }
    try {
      Http1Client.Response response = client.post(route.url(), headers, body);
      return Outcome.ofStatus(
          response.status(), Backoff.parseRetryAfter(response.retryAfter(), Instant.now()));
    } catch (IOException | RuntimeException e) {
      return ofFailure(e);
    }
  }

  private static Outcome ofFailure(Throwable cause) {
    String what =
        switch (cause) {
          case SocketTimeoutException e -> "timeout: " + e.getMessage();
          case ConnectException e -> "connection refused or unreachable";
          default -> cause.getClass().getSimpleName() + ": " + cause.getMessage();
        };
    return new Outcome.Retryable(0, what, null);
  }

  @Override
  public void close() {
    executor.shutdownNow();
    client.close();
  }
}
