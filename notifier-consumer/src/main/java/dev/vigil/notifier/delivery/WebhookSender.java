package dev.vigil.notifier.delivery;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertTopic;
import dev.vigil.kit.SafeText;
import dev.vigil.kit.tracing.TraceParent;
import dev.vigil.kit.tracing.Tracing;
import dev.vigil.notifier.channel.Channel;
import dev.vigil.notifier.channel.ChannelRequest;
import dev.vigil.notifier.channel.EmailChannel;
import dev.vigil.notifier.channel.GroupChannel;
import dev.vigil.notifier.channel.GroupMessage;
import dev.vigil.notifier.channel.WebhookChannel;
import dev.vigil.notifier.webhook.WebhookRoutes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import java.io.ByteArrayOutputStream;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Sends one claimed receipt to its channel (the request built by the {@link Channel}; the default
 * is the signed webhook) through one shared Jetty {@link HttpClient}, or, for {@link
 * EmailChannel}s, by SMTP through {@link MailSender} (asynchronous, HTTP/1.1, pooled keep-alive
 * connections, TLS with hostname verification). Redirects are never followed: a 3xx is an outcome
 * and its Location is never requested. Each request has a connect timeout and a total timeout
 * ({@code readTimeout}: connecting, sending and the complete response). Response bodies are
 * discarded unread, except the first {@value #MAX_ERROR_BODY} bytes of an error answer when the
 * channel asks for them (PagerDuty's {@code errors}, Slack's reason), which end up, sanitised, in
 * the delivery's error. Never throws: every failure becomes an {@link Outcome}.
 *
 * <p>No request is re-sent here: a request that fails (for example on a keep-alive connection the
 * peer closed at that moment) is an ordinary retryable outcome, retried by the delivery loop with
 * the same {@code Idempotency-Key}.
 */
final class WebhookSender implements AutoCloseable {
  /** Pooled connections unused this long are closed, well before receivers usually drop them. */
  private static final Duration POOLED_IDLE = Duration.ofSeconds(2);

  /** At most this much of an error answer's body is kept (channels that ask for it). */
  static final int MAX_ERROR_BODY = 1024;

  private final Map<String, Channel> channels;
  private final Duration readTimeout;
  private final HttpClient client;
  private final MailSender mail;
  private final Tracer tracer;

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
    this(
        Map.of(WebhookChannel.NAME, new WebhookChannel(routes, Clock.systemUTC())),
        connectTimeout,
        readTimeout,
        maxInFlight,
        tls,
        pooledIdle,
        Tracing.none());
  }

  /** Sends to every channel in {@code channels} (by name) through one client. */
  WebhookSender(
      Map<String, Channel> channels,
      Duration connectTimeout,
      Duration readTimeout,
      int maxInFlight) {
    this(channels, connectTimeout, readTimeout, maxInFlight, Tracing.none());
  }

  /** As above, each delivery in a span of {@code tracing}'s. */
  WebhookSender(
      Map<String, Channel> channels,
      Duration connectTimeout,
      Duration readTimeout,
      int maxInFlight,
      Tracing tracing) {
    this(
        channels,
        connectTimeout,
        readTimeout,
        maxInFlight,
        new SslContextFactory.Client(),
        POOLED_IDLE,
        tracing);
  }

  /** Threads of the HTTP client: its selector plus the callbacks of completed requests. */
  private static final int HTTP_THREADS = 16;

  private WebhookSender(
      Map<String, Channel> channels,
      Duration connectTimeout,
      Duration readTimeout,
      int maxInFlight,
      SslContextFactory.Client tls,
      Duration pooledIdle,
      Tracing tracing) {
    this.tracer = tracing.tracer();
    this.channels = Map.copyOf(channels);
    this.readTimeout = readTimeout;
    this.mail = new MailSender(channels, connectTimeout, readTimeout);
    tls.setEndpointIdentificationAlgorithm("HTTPS"); // verify the certificate names the host
    HttpClient http = new HttpClient();
    http.setSslContextFactory(tls);
    http.setName("notifier-webhook");
    // Requests are asynchronous and their callbacks only queue a result, so a few threads carry any
    // number in flight; Jetty's default pool grows to 200 threads (138 seen at 1,000 webhooks/s,
    // each with its stack) when responses arrive in bursts.
    QueuedThreadPool threads = new QueuedThreadPool(HTTP_THREADS, 2);
    threads.setName("notifier-webhook");
    http.setExecutor(threads);
    http.setFollowRedirects(false);
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
    // No redirects, authentication challenges, 100-continue or upgrades: every status is an answer.
    // Cleared after start(), which installs the default handlers: before it, a receiver's 401
    // without WWW-Authenticate failed as "HTTP protocol violation" (status 0, retried five times)
    // instead of being the receiver's HTTP 401 (found in the compose stack with a wrong secret).
    http.getProtocolHandlers().clear();
    this.client = http;
  }

  /**
   * Starts one request without blocking: signing and queueing the request happen on the calling
   * worker thread, the outcome completes on a Jetty thread when the response (or failure) is
   * complete.
   */
  CompletableFuture<Outcome> send(Claim claim) {
    // One span per attempt, a child of the monitor's span when the record carried its traceparent:
    // the receiver gets this span's traceparent, so its own spans join the same trace.
    Span span =
        tracer
            .spanBuilder("deliver")
            .setParent(Tracing.parent(claim.traceparent()))
            .setSpanKind(SpanKind.CLIENT)
            .setAttribute("vigil.service", claim.service())
            .setAttribute("vigil.event_id", claim.eventId().toString())
            .setAttribute("vigil.channel", claim.channel())
            .setAttribute("vigil.attempt", claim.attempts())
            .startSpan();
    CompletableFuture<Outcome> outcome = send(claim, Tracing.traceParent(span).orElse(null));
    return outcome.whenComplete(
        (done, failure) -> {
          span.setAttribute(
              "vigil.outcome", done == null ? "failed" : done.getClass().getSimpleName());
          if (!(done instanceof Outcome.Delivered) && !(done instanceof Outcome.NotSent)) {
            span.setStatus(StatusCode.ERROR);
          }
          span.end();
        });
  }

  private CompletableFuture<Outcome> send(Claim claim, TraceParent trace) {
    CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    try {
      Channel channel = channels.get(claim.channel());
      if (channel == null) {
        // not reached: the store claims only the channels this sender has (see DeliveryStore)
        outcome.complete(
            new Outcome.Retryable(
                0, "channel '" + claim.channel() + "' is not configured on this instance", null));
        return outcome;
      }
      Optional<ChannelRequest> built;
      if (channel instanceof WebhookChannel webhook) {
        built = Optional.of(webhook.signed(claim.eventId(), claim.service(), claim.payload()));
      } else {
        AlertEvent event = AlertEventJson.read(claim.payload().getBytes(StandardCharsets.UTF_8));
        if (channel instanceof EmailChannel email) {
          return mail.send(email, event, trace); // SMTP, not HTTP: see MailSender
        }
        built = channel.request(event, claim.payload(), trace);
      }
      if (built.isEmpty()) {
        outcome.complete(
            new Outcome.NotSent(
                "channel '" + channel.name() + "' sends nothing for " + claim.kind()));
        return outcome;
      }
      return send(built.get(), trace);
    } catch (RuntimeException e) {
      outcome.complete(ofFailure(e));
    }
    return outcome;
  }

  /**
   * Sends one grouped message of {@code channel}, with the same rules as {@link #send}: a mail over
   * SMTP for an {@link EmailChannel}, else the channel's request; {@link Outcome.NotSent} when the
   * channel sends nothing for it. A message that carries many events continues none of their
   * traces: no traceparent header.
   */
  CompletableFuture<Outcome> send(GroupChannel channel, GroupMessage message) {
    try {
      if (channel instanceof EmailChannel email) {
        return mail.send(email, email.message(message));
      }
      Optional<ChannelRequest> built = channel.request(message);
      if (built.isEmpty()) {
        return CompletableFuture.completedFuture(
            new Outcome.NotSent(
                "channel '" + channel.name() + "' sends nothing for message " + message.seq()));
      }
      return send(built.get(), null);
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(ofFailure(e));
    }
  }

  private CompletableFuture<Outcome> send(ChannelRequest built, TraceParent trace) {
    CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    try {
      ErrorBody errorBody = built.readErrorBody() ? new ErrorBody() : null;
      Request request = request(built, trace);
      if (errorBody != null) {
        request.onResponseContent(errorBody);
      }
      request.send(
          result ->
              outcome.complete(
                  result.isFailed()
                      ? ofFailure(result.getFailure())
                      : ofResponse(result, errorBody)));
    } catch (RuntimeException e) {
      outcome.complete(ofFailure(e));
    }
    return outcome;
  }

  private Request request(ChannelRequest built, TraceParent trace) {
    long timeoutMillis = Math.max(1, readTimeout.toMillis());
    String contentType = built.headers().getOrDefault("Content-Type", "application/json");
    return client
        .newRequest(built.url())
        .method(HttpMethod.POST)
        .followRedirects(false)
        .timeout(timeoutMillis, TimeUnit.MILLISECONDS)
        .idleTimeout(timeoutMillis, TimeUnit.MILLISECONDS)
        .body(new BytesRequestContent(contentType, built.body()))
        .headers(
            headers ->
                built
                    .headers()
                    .forEach(
                        (name, value) -> {
                          if (!name.equalsIgnoreCase("Content-Type")) {
                            headers.put(name, value);
                          }
                        }))
        .headers(
            headers -> {
              if (trace != null) {
                headers.put(AlertTopic.HEADER_TRACEPARENT, trace.toString());
              }
            });
  }

  /** Keeps the first {@value #MAX_ERROR_BODY} bytes of a non-2xx answer, discards the rest. */
  private static final class ErrorBody implements Response.ContentListener {
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();

    @Override
    public void onContent(Response response, ByteBuffer content) {
      int status = response.getStatus();
      if (status >= 200 && status < 300) {
        return;
      }
      int room = MAX_ERROR_BODY - kept.size();
      if (room > 0) {
        byte[] chunk = new byte[Math.min(room, content.remaining())];
        content.get(chunk);
        kept.write(chunk, 0, chunk.length);
      }
    }

    /** The kept text, made safe for a column and a log line; empty when there was none. */
    String text() {
      String text = kept.toString(StandardCharsets.UTF_8).strip();
      return text.isEmpty() ? "" : SafeText.text(text, 300);
    }
  }

  private static Outcome ofResponse(Result result, ErrorBody errorBody) {
    var response = result.getResponse();
    Outcome outcome =
        Outcome.ofStatus(
            response.getStatus(),
            Backoff.parseRetryAfter(
                response.getHeaders().get(HttpHeader.RETRY_AFTER), Instant.now()));
    String body = errorBody == null ? "" : errorBody.text();
    if (body.isEmpty()) {
      return outcome;
    }
    return switch (outcome) {
      case Outcome.Retryable r ->
          new Outcome.Retryable(r.status(), r.error() + ": " + body, r.retryAfter());
      case Outcome.Permanent p -> new Outcome.Permanent(p.status(), p.error() + ": " + body);
      default -> outcome;
    };
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
    mail.close();
    try {
      client.stop(); // aborts what is still in flight; those receipts are retried after their lease
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // nothing left to release: the client's threads and connections are gone either way
    }
  }
}
