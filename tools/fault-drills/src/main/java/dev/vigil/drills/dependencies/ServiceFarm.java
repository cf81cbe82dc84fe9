package dev.vigil.drills.dependencies;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;

/**
 * The drill's services: one HTTP server answering {@code /s/<name>} with 200, or with 503 while
 * {@code name} is down. Taking many down is one call, so a storm starts at once for all of them.
 */
final class ServiceFarm implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final Set<String> down = ConcurrentHashMap.newKeySet();
  private final LongAdder requests = new LongAdder();

  private ServiceFarm(HttpServer server) {
    this.server = server;
  }

  static ServiceFarm start() {
    try {
      HttpServer server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1000);
      ServiceFarm farm = new ServiceFarm(server);
      server.createContext("/", farm::answer);
      server.setExecutor(farm.executor);
      server.start();
      return farm;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the drill's service farm", e);
    }
  }

  URI url(String service) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/s/" + service);
  }

  long requests() {
    return requests.sum();
  }

  void down(Collection<String> services) {
    down.addAll(services);
  }

  void up(Collection<String> services) {
    down.removeAll(services);
  }

  private void answer(HttpExchange exchange) throws IOException {
    requests.increment();
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      int status = 404;
      if (path.startsWith("/s/")) {
        status = down.contains(path.substring(3)) ? 503 : 200;
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
