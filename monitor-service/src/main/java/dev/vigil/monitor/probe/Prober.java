package dev.vigil.monitor.probe;

import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.target.TargetSpec;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Probes one HTTP target with the JDK {@link HttpClient}, outside any transaction. The connect
 * timeout and the response timeout are the target's own; redirects are followed only when the
 * target asks; at most {@link #BODY_LIMIT} bytes of the body are read. Every failure (DNS, connect,
 * TLS, timeout, unaccepted status) is a DOWN result with a short reason that never contains the
 * URL's credentials, path or query string. {@link #probe} blocks; call it on a virtual thread.
 */
public final class Prober implements AutoCloseable {
  /** Body bytes read at most; the verdict depends on the status only. */
  static final long BODY_LIMIT = 16 * 1024;

  private record ClientKey(Duration connectTimeout, boolean followRedirects) {}

  private final Map<ClientKey, HttpClient> clients = new ConcurrentHashMap<>();
  private final String userAgent;
  private final Clock clock;
  private final Timer latency;
  private final Counter up;
  private final Counter down;

  public Prober(String userAgent, Clock clock, MeterRegistry registry) {
    this.userAgent = userAgent;
    this.clock = clock;
    this.latency =
        Timer.builder("vigil.monitor.probe.latency")
            .description("Time from probe start to verdict")
            .register(registry);
    this.up = outcome(registry, "up");
    this.down = outcome(registry, "down");
    // Load the client classes now rather than inside the first probes' time budgets.
    HttpClient.newBuilder().build().shutdownNow();
  }

  private static Counter outcome(MeterRegistry registry, String outcome) {
    return Counter.builder("vigil.monitor.probes")
        .description("Probes run, by outcome")
        .tag("outcome", outcome)
        .register(registry);
  }

  /** Probes {@code target} now and returns its result; never throws for network problems. */
  public ProbeResult probe(TargetSpec target) {
    Instant startedAt = clock.instant();
    long start = System.nanoTime();
    ProbeResult result = exchange(target, startedAt, start);
    latency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    (result.status() == dev.vigil.monitor.alert.ProbeStatus.UP ? up : down).increment();
    return result;
  }

  private ProbeResult exchange(TargetSpec target, Instant startedAt, long start) {
    URI url = target.url();
    HttpClient client =
        clients.computeIfAbsent(
            new ClientKey(target.connectTimeout(), target.followRedirects()), Prober::newClient);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(withoutUserInfo(url))
            .timeout(target.timeout())
            .header("User-Agent", userAgent)
            .method(target.method(), HttpRequest.BodyPublishers.noBody());
    if (url.getRawUserInfo() != null) {
      request.header(
          "Authorization",
          "Basic "
              + Base64.getEncoder()
                  .encodeToString(url.getUserInfo().getBytes(StandardCharsets.UTF_8)));
    }
    // Connect and response-header timeouts are enforced by the client; this outer bound also
    // covers a body that trickles in.
    Duration deadline = target.connectTimeout().plus(target.timeout());
    // The budget runs from the probe start, so time lost before sending (e.g. CPU starvation)
    // cannot stretch a probe beyond the lease that covers it.
    long budget = deadline.toNanos() - (System.nanoTime() - start);
    if (budget <= 0) {
      return ProbeResult.down(
          target.name(), startedAt, elapsed(start), null, FailureReasons.timeout(deadline));
    }
    CompletableFuture<HttpResponse<Void>> exchange =
        client.sendAsync(request.build(), BoundedDiscard.handler(BODY_LIMIT));
    try {
      HttpResponse<Void> response = exchange.get(budget, TimeUnit.NANOSECONDS);
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      int status = response.statusCode();
      if (target.acceptedStatus().accepts(status)) {
        return ProbeResult.up(target.name(), startedAt, millis, status);
      }
      boolean redirect = status >= 300 && status < 400 && !target.followRedirects();
      return ProbeResult.down(
          target.name(), startedAt, millis, status, FailureReasons.status(status, redirect));
    } catch (TimeoutException e) {
      exchange.cancel(true);
      return ProbeResult.down(
          target.name(), startedAt, elapsed(start), null, FailureReasons.timeout(deadline));
    } catch (ExecutionException e) {
      return ProbeResult.down(
          target.name(),
          startedAt,
          elapsed(start),
          null,
          FailureReasons.of(e.getCause(), url, target.connectTimeout(), target.timeout()));
    } catch (InterruptedException e) {
      exchange.cancel(true);
      Thread.currentThread().interrupt();
      return ProbeResult.down(target.name(), startedAt, elapsed(start), null, "probe interrupted");
    }
  }

  private static long elapsed(long start) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }

  private static HttpClient newClient(ClientKey key) {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(key.connectTimeout())
        .followRedirects(
            key.followRedirects() ? HttpClient.Redirect.NORMAL : HttpClient.Redirect.NEVER)
        .build();
  }

  private static URI withoutUserInfo(URI url) {
    if (url.getRawUserInfo() == null) {
      return url;
    }
    try {
      return new URI(
          url.getScheme(), null, url.getHost(), url.getPort(), url.getPath(), url.getQuery(), null);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("url of target cannot be rebuilt without user info", e);
    }
  }

  @Override
  public void close() {
    clients.values().forEach(HttpClient::shutdownNow);
    clients.clear();
  }
}
