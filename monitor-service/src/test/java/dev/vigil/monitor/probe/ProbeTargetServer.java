package dev.vigil.monitor.probe;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local HTTP server standing in for 100 monitored services: {@code /t/<name>} answers 200 after a
 * short pause, and every request is logged with the probing instance (from the User-Agent) and
 * whether another probe of the same target was in flight at that moment.
 */
public final class ProbeTargetServer implements AutoCloseable {
  /** One probe as the target saw it. */
  public record Hit(String target, String instance, long startNanos) {}

  private final HttpServer server;
  private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
  private final List<Hit> hits = new CopyOnWriteArrayList<>();
  private final AtomicInteger overlaps = new AtomicInteger();
  private final long holdMillis;

  public ProbeTargetServer(long holdMillis) throws IOException {
    this.holdMillis = holdMillis;
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 200);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.createContext("/t/", this::handle);
    server.start();
  }

  private void handle(HttpExchange exchange) throws IOException {
    String target = exchange.getRequestURI().getPath().substring(3);
    String agent = exchange.getRequestHeaders().getFirst("User-Agent");
    String instance = agent == null ? "?" : agent.substring(agent.indexOf('/') + 1);
    AtomicInteger running = inFlight.computeIfAbsent(target, t -> new AtomicInteger());
    if (running.incrementAndGet() > 1) {
      overlaps.incrementAndGet();
    }
    hits.add(new Hit(target, instance, System.nanoTime()));
    try {
      Thread.sleep(holdMillis); // simulated service work, widens the window for overlaps
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      running.decrementAndGet();
    }
    byte[] body = "ok".getBytes();
    exchange.sendResponseHeaders(200, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  public String url(String target) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/t/" + target;
  }

  public List<Hit> hits() {
    return List.copyOf(hits);
  }

  public int overlaps() {
    return overlaps.get();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
