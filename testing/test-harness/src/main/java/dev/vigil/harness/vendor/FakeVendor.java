package dev.vigil.harness.vendor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A local stand-in for a channel's receiving end (PagerDuty, Slack): checks every request against
 * the documented contract ({@code contract} lists the violations), keeps what it received, and
 * answers with the status the test sets (a request that breaks the contract gets 400 with the
 * violations as the body, as the real services answer invalid requests). With a rate enforced
 * ({@link #enforceRate}), a request beyond it is answered 429 with {@code Retry-After}, as the
 * vendors do, and kept in {@link #overLimit()}.
 */
public final class FakeVendor implements AutoCloseable {
  /** PagerDuty's answer to an accepted event (Events API v2, 202). */
  public static final String PD_ACCEPTED =
      "{\"status\":\"success\",\"message\":\"Event processed\"}";

  /**
   * One request and the status it was answered with.
   *
   * @param atMicros when it arrived, epoch µs
   */
  public record Received(
      String path,
      String contentType,
      JsonNode body,
      List<String> violations,
      int status,
      long atMicros) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private final Function<JsonNode, List<String>> contract;
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final List<Received> overLimit = new CopyOnWriteArrayList<>();
  private volatile int status;
  private volatile String answer;
  private volatile RateEnforcer limit;
  private final AtomicInteger throttleNext = new AtomicInteger();
  private volatile long throttleSeconds;
  private volatile Runnable beforeNextAnswer;

  public FakeVendor(Function<JsonNode, List<String>> contract, int status, String answer) {
    this.contract = contract;
    this.status = status;
    this.answer = answer;
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new IllegalStateException("fake vendor could not bind", e);
    }
    server.createContext("/", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  /**
   * A Slack incoming webhook as Slack documents it (https://api.slack.com/apis/rate-limits:
   * incoming webhooks, "1 per second" per channel, "short bursts ... allowed"): the body contract
   * of {@link SlackContract}, {@code 200 ok}, one message per second with a burst of {@code burst}
   * (1: strictly one a second; 2: two in a row, then one a second), 429 with {@code Retry-After: 1}
   * beyond.
   */
  public static FakeVendor slack(int burst) {
    FakeVendor slack = new FakeVendor(SlackContract::violations, 200, "ok");
    slack.enforceOnePerSecond(burst);
    return slack;
  }

  /**
   * PagerDuty's Events API v2 as PagerDuty documents it: the body contract of {@link
   * PagerDutyContract}, {@code 202} with {@link #PD_ACCEPTED}, and 120 events per minute per
   * integration key (a burst of {@code burst}; 429 beyond it).
   */
  public static FakeVendor pagerDuty(int burst) {
    FakeVendor pd = new FakeVendor(PagerDutyContract::violations, 202, PD_ACCEPTED);
    pd.enforceRate(120, Duration.ofMinutes(1), burst, 1);
    return pd;
  }

  /** Every request received so far, in arrival order. */
  public List<Received> received() {
    return received;
  }

  /** Requests beyond the enforced rate (answered 429, as the vendor does). */
  public List<Received> overLimit() {
    return overLimit;
  }

  /** From now on, answer valid requests with {@code status} and {@code body}. */
  public void answer(int status, String body) {
    this.answer = body;
    this.status = status;
  }

  /**
   * From now on, enforce the vendor's rate as Slack documents it for an incoming webhook: one
   * message per second, short bursts allowed (a bucket of {@code burst} messages refilled at one a
   * second). A message beyond it is answered 429 with {@code Retry-After: 1} and kept in {@link
   * #overLimit()}.
   */
  public void enforceOnePerSecond(int burst) {
    enforceRate(1, Duration.ofSeconds(1), burst, 1);
  }

  /**
   * From now on, allow {@code count} messages per {@code per} (a bucket of {@code burst} refilled
   * evenly); a message beyond it is answered 429 with {@code Retry-After: retryAfterSeconds}.
   */
  public void enforceRate(int count, Duration per, int burst, long retryAfterSeconds) {
    this.limit =
        new RateEnforcer(
            burst, count / (per.toNanos() / 1e9), retryAfterSeconds, System.nanoTime());
  }

  /** Answers the next {@code count} valid requests 429 with {@code Retry-After: seconds}. */
  public void throttleNext(int count, long seconds) {
    this.throttleSeconds = seconds;
    this.throttleNext.set(count);
  }

  /**
   * Runs {@code action} once, for the next request, after it is kept in {@link #received()} and
   * before it is answered (a test does something "while the vendor has accepted the message").
   */
  public void beforeNextAnswer(Runnable action) {
    this.beforeNextAnswer = action;
  }

  /** Token bucket of the rate check: refills {@code perSecond} tokens a second up to a burst. */
  private static final class RateEnforcer {
    private final int burst;
    private final double perSecond;
    private final long retryAfter;
    private double tokens;
    private long last;

    RateEnforcer(int burst, double perSecond, long retryAfter, long now) {
      this.burst = burst;
      this.perSecond = perSecond;
      this.retryAfter = retryAfter;
      this.tokens = burst;
      this.last = now;
    }

    synchronized boolean take(long now) {
      tokens = Math.min(burst, tokens + (now - last) / 1e9 * perSecond);
      last = now;
      if (tokens >= 1) {
        tokens -= 1;
        return true;
      }
      return false;
    }
  }

  /** The URL of {@code path} on this fake. */
  public String url(String path) {
    return "http://localhost:" + server.getAddress().getPort() + path;
  }

  /** Every violation seen so far, over all requests. */
  public List<String> violations() {
    List<String> all = new ArrayList<>();
    received.forEach(r -> all.addAll(r.violations()));
    return all;
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      long at = nowMicros();
      byte[] bytes = exchange.getRequestBody().readAllBytes();
      List<String> violations = new ArrayList<>();
      if (!"POST".equals(exchange.getRequestMethod())) {
        violations.add("method must be POST, was " + exchange.getRequestMethod());
      }
      String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
      if (contentType == null || !contentType.startsWith("application/json")) {
        violations.add("Content-Type must be application/json, was " + contentType);
      }
      JsonNode body = null;
      try {
        body = JSON.readTree(bytes);
      } catch (IOException e) {
        violations.add("body is not JSON");
      }
      violations.addAll(contract.apply(body));
      int code = violations.isEmpty() ? status : 400;
      String reply = violations.isEmpty() ? answer : "{\"errors\":" + quoted(violations) + "}";
      RateEnforcer enforcer = limit;
      boolean over = false;
      if (code < 300 && throttleNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        code = 429;
        reply = "rate_limited";
        exchange.getResponseHeaders().set("Retry-After", Long.toString(throttleSeconds));
      } else if (code < 300 && enforcer != null && !enforcer.take(System.nanoTime())) {
        over = true;
        code = 429;
        reply = "rate_limited";
        exchange.getResponseHeaders().set("Retry-After", Long.toString(enforcer.retryAfter));
      }
      Received request =
          new Received(exchange.getRequestURI().getPath(), contentType, body, violations, code, at);
      received.add(request);
      if (over) {
        overLimit.add(request);
      }
      Runnable action = beforeNextAnswer;
      if (action != null) {
        beforeNextAnswer = null;
        action.run();
      }
      byte[] out = reply.getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(code, out.length == 0 ? -1 : out.length);
      if (out.length > 0) {
        try (OutputStream stream = exchange.getResponseBody()) {
          stream.write(out);
        }
      }
    }
  }

  private static long nowMicros() {
    java.time.Instant now = java.time.Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  private static String quoted(List<String> violations) {
    return JSON.valueToTree(violations).toString();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
