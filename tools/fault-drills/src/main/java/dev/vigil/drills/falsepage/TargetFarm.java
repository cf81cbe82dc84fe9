package dev.vigil.drills.falsepage;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;

/**
 * The drill's targets: one HTTP server answering {@code /t/<n>} with 200, or with 503 while target
 * {@code n} has a real outage (which every location then sees).
 */
final class TargetFarm implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final Set<Integer> down = ConcurrentHashMap.newKeySet();
  private final LongAdder requests = new LongAdder();

  private TargetFarm(HttpServer server) {
    this.server = server;
  }

  static TargetFarm start() {
    try {
      HttpServer server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
      TargetFarm farm = new TargetFarm(server);
      server.createContext("/", farm::answer);
      server.setExecutor(farm.executor);
      server.start();
      return farm;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the drill's target server", e);
    }
  }

  static String path(int target) {
    return "/t/" + target;
  }

  int port() {
    return server.getAddress().getPort();
  }

  long requests() {
    return requests.sum();
  }

  void down(int target) {
    down.add(target);
  }

  void up(int target) {
    down.remove(target);
  }

  private void answer(HttpExchange exchange) throws IOException {
    requests.increment();
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      int status = 404;
      if (path.startsWith("/t/")) {
        try {
          status = down.contains(Integer.parseInt(path.substring(3))) ? 503 : 200;
        } catch (NumberFormatException e) {
          status = 404;
        }
      }
      exchange.sendResponseHeaders(status, -1);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
