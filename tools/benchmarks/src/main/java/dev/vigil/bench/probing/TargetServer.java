package dev.vigil.bench.probing;

import com.sun.net.httpserver.HttpServer;
import dev.vigil.bench.outbox.Clocks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The probed services: one local HTTP server answering 200 on {@code /t/<index>} (with {@code
 * body}, or none; 503 once {@link #failAll()} was called) and recording, per target, when each
 * request arrived (epoch µs).
 */
final class TargetServer implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final long[][] arrivals;
  private final int[] counts;
  private volatile boolean failing;

  TargetServer(int targets) {
    this(targets, null);
  }

  TargetServer(int targets, String body) {
    byte[] bytes = body == null ? null : body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    this.arrivals = new long[targets][16];
    this.counts = new int[targets];
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 4096);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the target server", e);
    }
    server.createContext(
        "/t/",
        exchange -> {
          long at = Clocks.nowMicros();
          String path = exchange.getRequestURI().getPath();
          record(Integer.parseInt(path.substring(path.lastIndexOf('/') + 1)), at);
          exchange.getRequestBody().readAllBytes();
          if (failing) {
            exchange.sendResponseHeaders(503, -1);
          } else if (bytes == null) {
            exchange.sendResponseHeaders(200, -1);
          } else {
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
          }
          exchange.close();
        });
    server.setExecutor(executor);
    server.start();
  }

  private synchronized void record(int target, long at) {
    long[] a = arrivals[target];
    if (counts[target] == a.length) {
      arrivals[target] = a = Arrays.copyOf(a, a.length * 2);
    }
    a[counts[target]++] = at;
  }

  /** From now on every target answers 503 (the detection benchmark's failure). */
  void failAll() {
    failing = true;
  }

  String url(int target) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/t/" + target;
  }

  /** Arrival times of {@code target} so far. */
  synchronized long[] arrivals(int target) {
    return Arrays.copyOf(arrivals[target], counts[target]);
  }

  @Override
  public void close() {
    server.stop(0);
    executor.close();
  }
}
