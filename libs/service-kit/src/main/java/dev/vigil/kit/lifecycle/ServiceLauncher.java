package dev.vigil.kit.lifecycle;

import dev.vigil.kit.ClientFailures;
import dev.vigil.kit.ConfigException;
import java.io.PrintStream;
import java.util.function.Supplier;

/**
 * What every service's {@code main} does: start the service, and on SIGTERM / Ctrl-C close it (its
 * parts in reverse order, see {@link Closer}). A bad setting stops start-up with the message (key
 * and reason, never a secret value) on standard error and exit code 2.
 */
public final class ServiceLauncher {
  /** Exit code for invalid configuration. */
  public static final int INVALID_CONFIGURATION = 2;

  private ServiceLauncher() {}

  /**
   * Starts the service built by {@code start} and registers a shutdown hook named {@code
   * <name>-shutdown} that closes it.
   *
   * @return the started service, or null after {@code System.exit(2)} for invalid configuration
   */
  public static <S extends AutoCloseable> S launch(String name, Supplier<S> start) {
    S service = startOrExplain(start, System.err);
    if (service == null) {
      System.exit(INVALID_CONFIGURATION);
      return null;
    }
    Runtime.getRuntime()
        .addShutdownHook(
            Thread.ofPlatform().name(name + "-shutdown").unstarted(() -> closeQuietly(service)));
    return service;
  }

  /** The started service, or null after writing why the configuration is invalid to {@code err}. */
  static <S> S startOrExplain(Supplier<S> start, PrintStream err) {
    try {
      return start.get();
    } catch (ConfigException e) {
      err.println(e.getMessage());
      return null;
    } catch (RuntimeException e) {
      // a refused password or an unknown CA: say which setting to check before the stack trace
      String hint = ClientFailures.hint(e);
      if (hint != null) {
        err.println("start failed: " + hint);
      }
      throw e;
    }
  }

  private static void closeQuietly(AutoCloseable service) {
    try {
      service.close();
    } catch (Exception e) {
      // The JVM is stopping: the parts already logged what failed; say it once more, plainly.
      System.err.println("stopping failed: " + e);
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
