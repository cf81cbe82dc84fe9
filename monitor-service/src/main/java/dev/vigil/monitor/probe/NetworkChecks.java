package dev.vigil.monitor.probe;

import dev.vigil.monitor.targets.TargetSpec;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@code tcp} and {@code dns} checks. A name is looked up through the JVM's resolver (so its
 * cache applies: {@code networkaddress.cache.ttl}, 30 s by default) on a virtual thread, bounded by
 * the target's timeout, since the system resolver has no timeout of its own. Each check returns
 * null when it passes, otherwise a short reason naming only the host and port.
 */
final class NetworkChecks implements AutoCloseable {
  private static final int SHOWN_ADDRESSES = 4;

  private final ExecutorService lookups = Executors.newVirtualThreadPerTaskExecutor();

  /** A name that did not resolve in time, or at all; its message is the DOWN reason. */
  static final class LookupFailed extends Exception {
    private static final long serialVersionUID = 1L;

    LookupFailed(String reason) {
      super(reason, null, false, false);
    }
  }

  /** Resolves {@code host} within {@code budgetNanos}. */
  InetAddress[] resolve(String host, long budgetNanos) throws LookupFailed, InterruptedException {
    CompletableFuture<InetAddress[]> lookup =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return InetAddress.getAllByName(host);
              } catch (UnknownHostException e) {
                throw new java.util.concurrent.CompletionException(e);
              }
            },
            lookups);
    try {
      return lookup.get(Math.max(0, budgetNanos), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      lookup.cancel(true);
      throw new LookupFailed(
          "DNS: no answer for "
              + host
              + " within "
              + TimeUnit.NANOSECONDS.toMillis(budgetNanos)
              + "ms");
    } catch (ExecutionException e) {
      throw new LookupFailed("DNS: cannot resolve " + host);
    }
  }

  /** Why {@code target}'s name does not resolve as expected, or null. */
  String dns(TargetSpec target, long budgetNanos) throws InterruptedException {
    String host = target.url().getHost();
    InetAddress[] found;
    try {
      found = resolve(host, budgetNanos);
    } catch (LookupFailed e) {
      return e.getMessage();
    }
    List<InetAddress> resolved = Arrays.asList(found);
    for (InetAddress expected : target.checks().expectAddresses()) {
      if (!resolved.contains(expected)) {
        return "DNS: "
            + host
            + " resolved to "
            + shown(resolved)
            + ", expected "
            + expected.getHostAddress();
      }
    }
    return null;
  }

  /** Why a TCP connection to {@code target} could not be opened within the budget, or null. */
  String tcp(TargetSpec target, long budgetNanos) throws InterruptedException {
    long start = System.nanoTime();
    String host = target.url().getHost();
    int port = target.url().getPort();
    String endpoint = FailureReasons.endpoint(target.url());
    InetAddress[] addresses;
    try {
      addresses = resolve(host, budgetNanos);
    } catch (LookupFailed e) {
      return e.getMessage();
    }
    long left = budgetNanos - (System.nanoTime() - start);
    int connectMillis = (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left));
    if (left <= 0) {
      return "connect timeout: " + endpoint + " not reached within " + budgetMillis(budgetNanos);
    }
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(addresses[0], port), connectMillis);
      return null;
    } catch (SocketTimeoutException e) {
      return "connect timeout: " + endpoint + " not reached within " + budgetMillis(budgetNanos);
    } catch (ConnectException e) {
      return "connect: " + endpoint + " refused the connection";
    } catch (IOException e) {
      if (Thread.currentThread().isInterrupted()) {
        throw new InterruptedException("probe interrupted");
      }
      return "connect: " + endpoint + " failed (" + e.getClass().getSimpleName() + ")";
    }
  }

  private static String budgetMillis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos) + "ms";
  }

  private static String shown(List<InetAddress> addresses) {
    List<String> text =
        addresses.stream().limit(SHOWN_ADDRESSES).map(InetAddress::getHostAddress).toList();
    return String.join(", ", text) + (addresses.size() > SHOWN_ADDRESSES ? ", …" : "");
  }

  @Override
  public void close() {
    lookups.shutdownNow();
  }
}
