package dev.vigil.notifier.delivery;

import dev.vigil.contract.webhook.WebhookSignature;
import dev.vigil.notifier.webhook.WebhookRoute;
import dev.vigil.notifier.webhook.WebhookRoutes;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * Sends one claimed receipt as a signed POST through one shared Jetty {@link HttpClient}
 * (asynchronous, HTTP/1.1, pooled keep-alive connections, TLS with hostname verification).
 * Redirects are never followed: a 3xx is an outcome and its Location is never requested. Each
 * request has a connect timeout and a total timeout ({@code readTimeout}: connecting, sending and
 * the complete response). Response bodies are discarded unread. Never throws: every failure becomes
 * an {@link Outcome}.
 *
 * <p>No request is re-sent here: a request that fails (for example on a keep-alive connection the
 * peer closed at that moment) is an ordinary retryable outcome, retried by the delivery loop with
 * the same {@code Idempotency-Key}.
 */
final class WebhookSender implements AutoCloseable {
  /** Pooled connections unused this long are closed, well before receivers usually drop them. */
  private static final Duration POOLED_IDLE = Duration.ofSeconds(2);

  private final WebhookRoutes routes;
  private final Duration readTimeout;
  private final HttpClient client;

  /**
   * @param maxInFlight requests sent concurrently at most (all workers); one connection each, so a
   *     single receiver never makes requests queue for a connection
   */
  WebhookSender(
      WebhookRoutes routes, Duration connectTimeout, Duration readTimeout, int maxInFlight) {
    this(
        routes,
        connectTimeout,
        readTimeout,
        maxInFlight,
        new SslContextFactory.Client(),
        POOLED_IDLE);
  }

  /**
   * With the given TLS settings and pooled-connection idle time (tests trust their own certificate
   * this way, and keep connections while they look at connection reuse).
   */
  WebhookSender(
      WebhookRoutes routes,
      Duration connectTimeout,
      Duration readTimeout,
      int maxInFlight,
      SslContextFactory.Client tls,
      Duration pooledIdle) {
    this.routes = routes;
    this.readTimeout = readTimeout;
    tls.setEndpointIdentificationAlgorithm("HTTPS"); // verify the certificate names the host
    HttpClient http = new HttpClient();
    http.setSslContextFactory(tls);
    http.setName("notifier-webhook");
    http.setFollowRedirects(false);
    // no redirects, authentication challenges, 100-continue or upgrades: every status is an answer
    http.getProtocolHandlers().clear();
    // webhooks carry no state: no cookies kept or sent, no Accept-Encoding (bodies are discarded)
    http.setHttpCookieStore(new HttpCookieStore.Empty());
    http.getContentDecoderFactories().clear();
    http.setConnectTimeout(Math.max(1, connectTimeout.toMillis()));
    http.setIdleTimeout(pooledIdle.toMillis());
    http.setMaxConnectionsPerDestination(Math.max(1, maxInFlight));
    http.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, "vigil-notifier"));
    try {
      http.start();
    } catch (Exception e) {
      throw new IllegalStateException("webhook HTTP client did not start: " + e, e);
    }
    this.client = http;
  }

  /**
   * Starts one request without blocking: signing and queueing the request happen on the calling
   * worker thread, the outcome completes on a Jetty thread when the response (or failure) is
   * complete.
   */
  CompletableFuture<Outcome> send(Claim claim) {
    CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    try {
      request(claim)
          .send(
              result ->
                  outcome.complete(
                      result.isFailed() ? ofFailure(result.getFailure()) : ofResponse(result)));
    } catch (RuntimeException e) {
      outcome.complete(ofFailure(e));
    }
    return outcome;
  }

  private Request request(Claim claim) {
    WebhookRoute route = routes.routeFor(claim.service());
    byte[] body = claim.payload().getBytes(StandardCharsets.UTF_8);
    String id = claim.eventId().toString();
    long timestamp = Instant.now().getEpochSecond();
    String signature = WebhookSignature.sign(route.secrets(), id, timestamp, body);
    long timeoutMillis = Math.max(1, readTimeout.toMillis());
    return client
        .newRequest(route.url())
        .method(HttpMethod.POST)
        .followRedirects(false)
        .timeout(timeoutMillis, TimeUnit.MILLISECONDS)
        .idleTimeout(timeoutMillis, TimeUnit.MILLISECONDS)
        .body(new BytesRequestContent("application/json", body))
        .headers(
            headers -> {
              headers.put("Idempotency-Key", id);
              headers.put(WebhookSignature.HEADER_ID, id);
              headers.put(WebhookSignature.HEADER_TIMESTAMP, Long.toString(timestamp));
              headers.put(WebhookSignature.HEADER_SIGNATURE, signature);
              if (route.bearerToken() != null) {
                headers.put(HttpHeader.AUTHORIZATION, "Bearer " + route.bearerToken());
              }
            });
  }

  private static Outcome ofResponse(Result result) {
    var response = result.getResponse();
    return Outcome.ofStatus(
        response.getStatus(),
        Backoff.parseRetryAfter(response.getHeaders().get(HttpHeader.RETRY_AFTER), Instant.now()));
  }

  /** Timeouts and unreachable receivers are told apart; messages never contain the URL path. */
  private static Outcome ofFailure(Throwable failure) {
    Throwable cause = failure;
    for (Throwable c = failure; c != null; c = c.getCause()) {
      if (c instanceof TimeoutException
          || c instanceof SocketTimeoutException
          || c instanceof ConnectException) {
        cause = c;
        break;
      }
    }
    String what =
        switch (cause) {
          case TimeoutException e -> "timeout: " + e.getMessage();
          case SocketTimeoutException e -> "timeout: " + e.getMessage();
          case ConnectException e -> "connection refused or unreachable";
          default -> cause.getClass().getSimpleName() + ": " + cause.getMessage();
        };
    return new Outcome.Retryable(0, what, null);
  }

  @Override
  public void close() {
    try {
      client.stop(); // aborts what is still in flight; those receipts are retried after their lease
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // nothing left to release: the client's threads and connections are gone either way
    }
  }
}
