package dev.vigil.monitor.probe;

import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.alert.ProbeStatus;
import dev.vigil.monitor.alert.ResultSource;
import dev.vigil.monitor.targets.Checks;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;

/**
 * Probes one target outside any transaction: HTTP with the JDK {@link HttpClient}, TCP by opening a
 * connection, DNS by resolving the name ({@link NetworkChecks}). The connect timeout and the
 * response timeout are the target's own; redirects are followed only when the target asks; at most
 * {@link #BODY_LIMIT} bytes of a body are read, or {@link #BODY_CHECK_LIMIT} when the target has
 * body conditions. Every failure (DNS, connect, TLS, timeout, unaccepted status, a body or
 * certificate condition, the latency budget) is a DOWN result with a short reason that never
 * contains the URL's credentials, path or query string, nor a header value. {@link #probe} blocks;
 * call it on a virtual thread.
 */
public final class Prober implements AutoCloseable {
  /** Body bytes read at most when the verdict depends on the status only. */
  static final long BODY_LIMIT = 16 * 1024;

  /** Body bytes read and checked at most when the target has body conditions (a hard cap). */
  public static final long BODY_CHECK_LIMIT = 64 * 1024;

  private record ClientKey(Duration connectTimeout, boolean followRedirects) {}

  private final Map<ClientKey, HttpClient> clients = new ConcurrentHashMap<>();
  // The clients' own default executor is a cached pool of platform threads that grows with the
  // responses in flight (one ~1 MiB stack each: 87 threads at 10,000 targets every 10 s); their
  // callbacks only hand bytes on, so a virtual thread per task costs a few KiB instead.
  private final ExecutorService callbacks =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("probe-http-", 0).factory());
  private final NetworkChecks network = new NetworkChecks();
  private final SSLContext tls;
  private final String userAgent;
  private final Clock clock;
  private final Timer latency;
  private final Counter up;
  private final Counter down;

  public Prober(String userAgent, Clock clock, MeterRegistry registry) {
    this(userAgent, clock, registry, defaultTls());
  }

  /** A prober that verifies certificates with {@code tls} (tests: a CA made in the test). */
  Prober(String userAgent, Clock clock, MeterRegistry registry, SSLContext tls) {
    this.tls = tls;
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
    ProbeResult result =
        switch (target.kind()) {
          case TCP, DNS -> network(target, startedAt, start);
          default -> exchange(target, startedAt, start);
        };
    result = withinBudget(target, result);
    latency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    (result.status() == ProbeStatus.UP ? up : down).increment();
    return result;
  }

  /** Slower than the target's latency budget is DOWN, whatever else the probe found. */
  private static ProbeResult withinBudget(TargetSpec target, ProbeResult result) {
    Duration budget = target.checks().maxLatency();
    if (budget == null
        || result.status() != ProbeStatus.UP
        || result.latencyMs() <= budget.toMillis()) {
      return result;
    }
    return ProbeResult.down(
        result.service(),
        result.startedAt(),
        result.latencyMs(),
        result.httpStatus(),
        "latency " + result.latencyMs() + "ms over budget " + budget.toMillis() + "ms");
  }

  private ProbeResult network(TargetSpec target, Instant startedAt, long start) {
    // The connect timeout bounds a TCP connect (name lookup included); the timeout a DNS lookup.
    Duration budget = target.kind() == TargetKind.TCP ? target.connectTimeout() : target.timeout();
    try {
      String problem =
          target.kind() == TargetKind.TCP
              ? network.tcp(target, budget.toNanos())
              : network.dns(target, budget.toNanos());
      return problem == null
          ? new ProbeResult(
              target.name(),
              ProbeStatus.UP,
              startedAt,
              elapsed(start),
              null,
              null,
              ResultSource.PROBE,
              null)
          : ProbeResult.down(target.name(), startedAt, elapsed(start), null, problem);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ProbeResult.down(target.name(), startedAt, elapsed(start), null, "probe interrupted");
    }
  }

  private ProbeResult exchange(TargetSpec target, Instant startedAt, long start) {
    URI url = target.url();
    HttpClient client =
        clients.computeIfAbsent(
            new ClientKey(target.connectTimeout(), target.followRedirects()), this::newClient);
    Checks checks = target.checks();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(withoutUserInfo(url))
            .timeout(target.timeout())
            .header("User-Agent", userAgent)
            .method(
                target.method(),
                checks.body() == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(checks.body()));
    if (url.getRawUserInfo() != null) {
      request.header(
          "Authorization",
          "Basic "
              + Base64.getEncoder()
                  .encodeToString(url.getUserInfo().getBytes(StandardCharsets.UTF_8)));
    }
    String headerProblem = RequestHeaders.apply(checks.headers(), request);
    if (headerProblem != null) {
      return ProbeResult.down(target.name(), startedAt, elapsed(start), null, headerProblem);
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
    boolean keep = checks.needsBody();
    long limit = keep ? BODY_CHECK_LIMIT : BODY_LIMIT;
    CompletableFuture<HttpResponse<BoundedBody.Body>> exchange =
        client.sendAsync(request.build(), BoundedBody.handler(limit, keep));
    try {
      HttpResponse<BoundedBody.Body> response = exchange.get(budget, TimeUnit.NANOSECONDS);
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      int status = response.statusCode();
      if (!target.acceptedStatus().accepts(status)) {
        boolean redirect = status >= 300 && status < 400 && !target.followRedirects();
        return ProbeResult.down(
            target.name(), startedAt, millis, status, FailureReasons.status(status, redirect));
      }
      String problem = ResponseChecks.bodyProblem(checks, response.body(), limit);
      if (problem == null) {
        problem =
            ResponseChecks.tlsProblem(
                checks, response.sslSession(), clock.instant(), FailureReasons.endpoint(url));
      }
      return problem == null
          ? ProbeResult.up(target.name(), startedAt, millis, status)
          : ProbeResult.down(target.name(), startedAt, millis, status, problem);
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

  private static SSLContext defaultTls() {
    try {
      return SSLContext.getDefault();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no default TLS context", e);
    }
  }

  private HttpClient newClient(ClientKey key) {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .executor(callbacks)
        .sslContext(tls)
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
    callbacks.shutdownNow();
    network.close();
  }
}
