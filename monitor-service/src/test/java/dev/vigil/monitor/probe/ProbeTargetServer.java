package dev.vigil.monitor.probe;

import io.javalin.Javalin;
import io.javalin.http.Context;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A local HTTP server standing in for 100 monitored services: {@code /t/<name>} answers 200 after a
 * short pause, and every request is logged with the probing instance (from the User-Agent) and
 * whether another probe of the same target was in flight at that moment.
 */
public final class ProbeTargetServer implements AutoCloseable {
  /** One probe as the target saw it. */
  public record Hit(String target, String instance, long startNanos) {}

  private final Javalin server;
  private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
  private final Queue<Hit> hits = new ConcurrentLinkedQueue<>();
  private final AtomicInteger overlaps = new AtomicInteger();
  private final long holdMillis;
  private final AtomicReference<Trap> trap = new AtomicReference<>();

  private record Trap(String instance, Runnable action) {}

  public ProbeTargetServer(long holdMillis) {
    this.holdMillis = holdMillis;
    server =
        Javalin.create(
                config -> {
                  config.startup.showJavalinBanner = false;
                  config.concurrency.useVirtualThreads = true;
                  config.routes.get("/t/{target}", this::handle);
                })
            .start("127.0.0.1", 0);
  }

  private void handle(Context ctx) {
    String target = ctx.pathParam("target");
    String agent = ctx.header("User-Agent");
    String instance = agent == null ? "?" : agent.substring(agent.indexOf('/') + 1);
    AtomicInteger running = inFlight.computeIfAbsent(target, t -> new AtomicInteger());
    if (running.incrementAndGet() > 1) {
      overlaps.incrementAndGet();
    }
    hits.add(new Hit(target, instance, System.nanoTime()));
    try {
      Trap armed = trap.get();
      if (armed != null && armed.instance().equals(instance) && trap.compareAndSet(armed, null)) {
        armed.action().run(); // before answering: the probe is in flight, its lease held
      }
      if (holdMillis > 0) {
        Thread.sleep(holdMillis); // simulated service work, widens the window for overlaps
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      running.decrementAndGet();
    }
    ctx.result("ok");
  }

  /**
   * Runs {@code action} once, inside the next request from {@code instance} and before it is
   * answered: a kill placed here lands while that instance holds the target's lease, whatever the
   * timing of its schedule.
   */
  public void onNextRequestFrom(String instance, Runnable action) {
    trap.set(new Trap(instance, action));
  }

  public String url(String target) {
    return "http://127.0.0.1:" + server.port() + "/t/" + target;
  }

  public List<Hit> hits() {
    return List.copyOf(hits);
  }

  public int overlaps() {
    return overlaps.get();
  }

  @Override
  public void close() {
    server.stop();
  }
}
