package dev.vigil.local;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Predicate;

/**
 * Local HTTP endpoints the demo monitors. Each answers 200 when "up" and 503 when "down", on a
 * schedule measured from the moment the server started:
 *
 * <ul>
 *   <li>{@code /healthy}: always up;
 *   <li>{@code /flapping}: up for 20 s, down for 20 s, and so on — the first FAILED comes about 25
 *       s after start, its RECOVERED about 40 s after start;
 *   <li>{@code /maintenance}: down for 30 s in every 2 minutes, starting 60 s after start.
 * </ul>
 */
public final class DemoTargets implements AutoCloseable {
  /** The endpoints and their schedules: up at a given time since start, or not. */
  static final Map<String, Predicate<Duration>> SCHEDULES =
      Map.of(
          "healthy", elapsed -> true,
          "flapping", elapsed -> (elapsed.toSeconds() / 20) % 2 == 0,
          "maintenance",
              elapsed -> elapsed.toSeconds() % 120 < 60 || elapsed.toSeconds() % 120 >= 90);

  private final HttpServer server;
  private final Instant startedAt;
  private final Clock clock;

  private DemoTargets(HttpServer server, Clock clock) {
    this.server = server;
    this.clock = clock;
    this.startedAt = clock.instant();
  }

  /** Starts the endpoints on {@code port} (0 = any free port) on the loopback interface. */
  public static DemoTargets start(int port) {
    return start(new InetSocketAddress("127.0.0.1", port), Clock.systemUTC());
  }

  /** Starts the endpoints on every interface, for a container. */
  public static DemoTargets startOnAllInterfaces(int port) {
    return start(new InetSocketAddress(port), Clock.systemUTC());
  }

  static DemoTargets start(InetSocketAddress address, Clock clock) {
    int port = address.getPort();
    try {
      HttpServer server = HttpServer.create(address, 0);
      server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
      DemoTargets targets = new DemoTargets(server, clock);
      SCHEDULES.forEach(
          (name, schedule) ->
              server.createContext("/" + name, exchange -> targets.answer(exchange, schedule)));
      server.start();
      return targets;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start demo targets on port " + port, e);
    }
  }

  /**
   * The URL of endpoint {@code name} ({@code healthy}, {@code flapping} or {@code maintenance}).
   */
  public String url(String name) {
    return "http://127.0.0.1:" + port() + "/" + name;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private void answer(HttpExchange exchange, Predicate<Duration> schedule) throws IOException {
    boolean up = schedule.test(Duration.between(startedAt, clock.instant()));
    byte[] body = (up ? "up\n" : "down for the demo\n").getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(up ? 200 : 503, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
