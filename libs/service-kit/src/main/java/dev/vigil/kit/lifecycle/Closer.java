package dev.vigil.kit.lifecycle;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parts a service started, closed in reverse order. Every part is closed even when an earlier
 * one fails; the first failure is kept and the later ones are added to it as suppressed (Kafka's
 * {@code Utils.closeQuietly(…, firstException)}); an interrupt seen while closing is restored after
 * all parts are closed. Used both by a service's {@code close()} and by a start that fails part-way
 * ({@link #closeAfter}).
 *
 * <p>Not thread-safe: a service registers its parts on one thread while it starts and closes them
 * once.
 */
public final class Closer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Closer.class);

  private final String owner;
  private final Deque<Named> parts = new ArrayDeque<>();

  private record Named(String name, AutoCloseable part) {}

  /**
   * @param owner what the parts belong to (e.g. {@code monitor}), named in the logs and errors
   */
  public Closer(String owner) {
    this.owner = owner;
  }

  /** Registers a started part to be closed before every part registered earlier. */
  public <T extends AutoCloseable> T add(T part) {
    return add(part.getClass().getSimpleName(), part);
  }

  /** Registers a started part under {@code name} (for lambdas, whose class name says nothing). */
  public <T extends AutoCloseable> T add(String name, T part) {
    parts.push(new Named(name, part));
    return part;
  }

  /**
   * Closes every part after a failed start and returns {@code failure} with any close failure added
   * as suppressed, so the caller can {@code throw closer.closeAfter(e)}.
   */
  public <E extends Throwable> E closeAfter(E failure) {
    RuntimeException closing = closeAll();
    if (closing != null) {
      failure.addSuppressed(closing);
    }
    return failure;
  }

  /**
   * Closes every part in reverse order of registration.
   *
   * @throws RuntimeException the first failure (a checked one wrapped, naming the part), with the
   *     later ones suppressed
   */
  @Override
  public void close() {
    RuntimeException first = closeAll();
    if (first != null) {
      throw first;
    }
  }

  private RuntimeException closeAll() {
    RuntimeException first = null;
    boolean interrupted = false;
    while (!parts.isEmpty()) {
      Named named = parts.pop();
      try {
        named.part().close();
      } catch (InterruptedException e) {
        interrupted = true;
      } catch (Exception e) {
        LOG.warn(
            "part failed to close owner={} part={} error={}", owner, named.name(), e.toString());
        if (first == null) {
          first =
              e instanceof RuntimeException runtime
                  ? runtime
                  : new IllegalStateException(
                      "closing " + owner + " part " + named.name() + " failed", e);
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return first;
  }
}
