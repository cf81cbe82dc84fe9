package dev.vigil.monitor.probe;

import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import javax.net.ssl.SSLException;

/**
 * Short, safe DOWN reasons. They name the host and port only: never the path, query string or user
 * info of the URL, and never raw exception messages that might echo them.
 */
final class FailureReasons {
  private FailureReasons() {}

  static String endpoint(URI url) {
    int port = url.getPort();
    return url.getHost() + (port < 0 ? "" : ":" + port);
  }

  static String status(int status, boolean redirectNotFollowed) {
    return "HTTP " + status + (redirectNotFollowed ? " (redirect not followed)" : "");
  }

  static String timeout(Duration timeout) {
    return "timeout: no response within " + timeout.toMillis() + "ms";
  }

  static String of(Throwable error, URI url, Duration connectTimeout, Duration timeout) {
    String endpoint = endpoint(url);
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (cause instanceof HttpConnectTimeoutException) {
        return "connect timeout: "
            + endpoint
            + " not reached within "
            + connectTimeout.toMillis()
            + "ms";
      }
      if (cause instanceof HttpTimeoutException) {
        return timeout(timeout);
      }
      if (cause instanceof UnresolvedAddressException || cause instanceof UnknownHostException) {
        return "DNS: cannot resolve " + url.getHost();
      }
      if (cause instanceof SSLException) {
        return "TLS: handshake with "
            + endpoint
            + " failed ("
            + cause.getClass().getSimpleName()
            + ")";
      }
      if (cause instanceof ConnectException) {
        return "connect: " + endpoint + " refused the connection";
      }
    }
    return "I/O: exchange with " + endpoint + " failed (" + error.getClass().getSimpleName() + ")";
  }
}
