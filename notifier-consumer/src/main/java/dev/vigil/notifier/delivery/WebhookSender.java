package dev.vigil.notifier.delivery;

import dev.vigil.notifier.webhook.WebhookRoute;
import dev.vigil.notifier.webhook.WebhookRoutes;
import dev.vigil.notifier.webhook.WebhookSignature;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Sends one claimed receipt as a signed POST. One keep-alive {@link HttpClient} for all workers,
 * HTTP/1.1, redirects never followed (a 3xx is an outcome, its Location is never requested),
 * connect and response timeouts. Never throws: every failure becomes an {@link Outcome}.
 */
final class WebhookSender implements AutoCloseable {
  private final WebhookRoutes routes;
  private final Duration readTimeout;
  private final ExecutorService executor;
  private final HttpClient client;

  WebhookSender(WebhookRoutes routes, Duration connectTimeout, Duration readTimeout) {
    this.routes = routes;
    this.readTimeout = readTimeout;
    this.executor = Executors.newVirtualThreadPerTaskExecutor();
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(connectTimeout)
            .executor(executor)
            .build();
  }

  CompletableFuture<Outcome> send(Claim claim) {
    WebhookRoute route = routes.routeFor(claim.service());
    byte[] body = claim.payload().getBytes(StandardCharsets.UTF_8);
    String id = claim.eventId().toString();
    long timestamp = Instant.now().getEpochSecond();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(route.url())
            .timeout(readTimeout)
            .header("Content-Type", "application/json")
            .header("User-Agent", "vigil-notifier")
            .header("Idempotency-Key", id)
            .header(WebhookSignature.HEADER_ID, id)
            .header(WebhookSignature.HEADER_TIMESTAMP, Long.toString(timestamp))
            .header(
                WebhookSignature.HEADER_SIGNATURE,
                WebhookSignature.sign(route.secrets(), id, timestamp, body))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (route.bearerToken() != null) {
      request.header("Authorization", "Bearer " + route.bearerToken());
    }
    try {
      return client
          .sendAsync(request.build(), HttpResponse.BodyHandlers.discarding())
          .handle(
              (response, failure) ->
                  failure == null
                      ? Outcome.ofStatus(
                          response.statusCode(),
                          Backoff.parseRetryAfter(
                              response.headers().firstValue("Retry-After").orElse(null),
                              Instant.now()))
                      : ofFailure(failure));
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(ofFailure(e));
    }
  }

  private static Outcome ofFailure(Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    String what =
        switch (cause) {
          case HttpTimeoutException e -> "timeout: " + e.getMessage();
          case ConnectException e -> "connection refused or unreachable";
          default -> cause.getClass().getSimpleName() + ": " + cause.getMessage();
        };
    return new Outcome.Retryable(0, what, null);
  }

  @Override
  public void close() {
    client.shutdownNow();
    executor.shutdownNow();
  }
}
