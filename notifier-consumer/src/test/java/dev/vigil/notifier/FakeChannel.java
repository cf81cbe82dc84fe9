package dev.vigil.notifier;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.vigil.contract.AlertEventJson;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A local stand-in for a channel's receiving end (PagerDuty, Slack): checks every request against
 * the documented contract ({@code contract} lists the violations), keeps what it received, and
 * answers with the status the test sets (a request that breaks the contract gets 400 with the
 * violations as the body, as the real services answer invalid requests).
 */
final class FakeChannel implements AutoCloseable {
  /** One request and the status it was answered with. */
  record Received(
      String path, String contentType, JsonNode body, List<String> violations, int status) {}

  private final HttpServer server;
  private final Function<JsonNode, List<String>> contract;
  final List<Received> received = new CopyOnWriteArrayList<>();
  private volatile int status;
  private volatile String answer;
  private volatile RateEnforcer limit;
  private final AtomicInteger throttleNext = new AtomicInteger();
  private volatile long throttleSeconds;
  private volatile Runnable beforeNextAnswer;

  /** Requests beyond the enforced rate (answered 429, as the vendor does). */
  final List<Received> overLimit = new CopyOnWriteArrayList<>();

  FakeChannel(Function<JsonNode, List<String>> contract, int status, String answer) {
    this.contract = contract;
    this.status = status;
    this.answer = answer;
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new IllegalStateException("fake channel could not bind", e);
    }
    server.createContext("/", this::handle);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.start();
  }

  /** From now on, answer valid requests with {@code status} and {@code body}. */
  void answer(int status, String body) {
    this.answer = body;
    this.status = status;
  }

  /**
   * From now on, enforce the vendor's rate as Slack documents it for an incoming webhook: one
   * message per second, short bursts allowed (a bucket of {@code burst} messages refilled at one a
   * second). A message beyond it is answered 429 with {@code Retry-After: 1} and kept in {@link
   * #overLimit}.
   */
  void enforceOnePerSecond(int burst) {
    this.limit = new RateEnforcer(burst, System.nanoTime());
  }

  /** Answers the next {@code count} valid requests 429 with {@code Retry-After: seconds}. */
  void throttleNext(int count, long seconds) {
    this.throttleSeconds = seconds;
    this.throttleNext.set(count);
  }

  /**
   * Runs {@code action} once, for the next request, after it is kept in {@link #received} and
   * before it is answered (a test does something "while the vendor has accepted the message").
   */
  void beforeNextAnswer(Runnable action) {
    this.beforeNextAnswer = action;
  }

  /** Token bucket of the rate check: refills one token a second up to {@code burst}. */
  private static final class RateEnforcer {
    private final int burst;
    private double tokens;
    private long last;

    RateEnforcer(int burst, long now) {
      this.burst = burst;
      this.tokens = burst;
      this.last = now;
    }

    synchronized boolean take(long now) {
      tokens = Math.min(burst, tokens + (now - last) / 1e9);
      last = now;
      if (tokens >= 1) {
        tokens -= 1;
        return true;
      }
      return false;
    }
  }

  String url(String path) {
    return "http://localhost:" + server.getAddress().getPort() + path;
  }

  /** Every violation seen so far, over all requests. */
  List<String> violations() {
    List<String> all = new ArrayList<>();
    received.forEach(r -> all.addAll(r.violations()));
    return all;
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
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
        body = AlertEventJson.mapper().readTree(bytes);
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
        exchange.getResponseHeaders().set("Retry-After", "1");
      }
      Received request =
          new Received(exchange.getRequestURI().getPath(), contentType, body, violations, code);
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

  private static String quoted(List<String> violations) {
    return AlertEventJson.mapper().valueToTree(violations).toString();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
