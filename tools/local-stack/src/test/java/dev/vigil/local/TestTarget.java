package dev.vigil.local;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A probe target on loopback that answers 200 while up and 503 while down, and the targets file
 * that makes the monitor probe it every second under {@code name}.
 */
final class TestTarget implements AutoCloseable {
  private final AtomicBoolean up = new AtomicBoolean(true);
  private final HttpServer server;

  private TestTarget(HttpServer server) {
    this.server = server;
  }

  static TestTarget start() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    TestTarget target = new TestTarget(server);
    server.createContext(
        "/",
        exchange -> {
          exchange.sendResponseHeaders(target.up.get() ? 200 : 503, -1);
          exchange.close();
        });
    server.start();
    return target;
  }

  void up(boolean isUp) {
    up.set(isUp);
  }

  /** Writes a targets file with this target as {@code name}, opening an incident after N DOWN. */
  Path writeTargetsFile(Path file, String name, int failureThreshold) throws IOException {
    return Files.writeString(
        file,
        """
        targets:
          - name: %s
            url: http://127.0.0.1:%d/health
            interval: 1s
            timeout: 500ms
            failureThreshold: %d
        """
            .formatted(name, server.getAddress().getPort(), failureThreshold));
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
