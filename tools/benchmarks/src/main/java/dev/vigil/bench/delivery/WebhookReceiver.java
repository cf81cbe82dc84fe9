package dev.vigil.bench.delivery;

import com.sun.net.httpserver.HttpServer;
import dev.vigil.bench.outbox.Clocks;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A local webhook receiver that answers 204 at once and keeps, per event id, when it first arrived
 * (epoch µs), and per service the order in which event ids first arrived.
 */
public final class WebhookReceiver implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final Map<UUID, Long> firstArrival = new ConcurrentHashMap<>();
  private final Map<String, List<UUID>> orderByService = new HashMap<>();
  private final AtomicLong requests = new AtomicLong();

  public WebhookReceiver() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the webhook receiver", e);
    }
    server.createContext(
        "/hook",
        exchange -> {
          long at = Clocks.nowMicros();
          byte[] body = exchange.getRequestBody().readAllBytes();
          requests.incrementAndGet();
          AlertEvent event = AlertEventJson.read(body);
          if (firstArrival.putIfAbsent(event.eventId(), at) == null) {
            synchronized (orderByService) {
              orderByService
                  .computeIfAbsent(event.service(), s -> new ArrayList<>())
                  .add(event.eventId());
            }
          }
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    server.setExecutor(executor);
    server.start();
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
  }

  public Map<UUID, Long> firstArrival() {
    return firstArrival;
  }

  public int distinct() {
    return firstArrival.size();
  }

  public long requests() {
    return requests.get();
  }

  /** Event ids of {@code service} in the order they first arrived. */
  public List<UUID> order(String service) {
    synchronized (orderByService) {
      return List.copyOf(orderByService.getOrDefault(service, List.of()));
    }
  }

  void clear() {
    firstArrival.clear();
    requests.set(0);
    synchronized (orderByService) {
      orderByService.clear();
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.close();
  }
}
