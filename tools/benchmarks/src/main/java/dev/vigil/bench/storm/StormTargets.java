package dev.vigil.bench.storm;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The probed services of a storm: one local HTTP server answering every {@code /t/<index>} with 200
 * while healthy and 503 while failing; {@link #fail()} and {@link #recover()} flip all of them at
 * once.
 */
public final class StormTargets implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final AtomicBoolean failing = new AtomicBoolean();
  private final AtomicLong requests = new AtomicLong();

  public StormTargets() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 4096);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the storm target server", e);
    }
    server.createContext(
        "/t/",
        exchange -> {
          requests.incrementAndGet();
          exchange.getRequestBody().readAllBytes();
          exchange.sendResponseHeaders(failing.get() ? 503 : 200, -1);
          exchange.close();
        });
    server.setExecutor(executor);
    server.start();
  }

  /** URL of target {@code index}. */
  public String url(int index) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/t/" + index;
  }

  /** From now on every target answers 503. */
  public void fail() {
    failing.set(true);
  }

  /** From now on every target answers 200. */
  public void recover() {
    failing.set(false);
  }

  /** Requests answered so far. */
  public long requests() {
    return requests.get();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.close();
  }
}
