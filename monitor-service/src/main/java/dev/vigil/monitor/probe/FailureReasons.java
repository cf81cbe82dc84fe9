package dev.vigil.monitor.probe;

import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.security.cert.CertificateException;
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
    // Most specific first: the JDK wraps e.g. an unresolved address in a ConnectException.
    if (has(error, HttpConnectTimeoutException.class)) {
      return "connect timeout: "
          + endpoint
          + " not reached within "
          + connectTimeout.toMillis()
          + "ms";
    }
    if (has(error, UnresolvedAddressException.class) || has(error, UnknownHostException.class)) {
      return "DNS: cannot resolve " + url.getHost();
    }
    if (has(error, CertificateException.class)) {
      // Untrusted issuer, self-signed, expired, or a name the certificate does not cover.
      return "TLS: certificate of " + endpoint + " does not verify";
    }
    if (has(error, SSLException.class)) {
      return "TLS: handshake with "
          + endpoint
          + " failed ("
          + find(error, SSLException.class)
          + ")";
    }
    if (has(error, HttpTimeoutException.class)) {
      return timeout(timeout);
    }
    if (has(error, ConnectException.class)) {
      return "connect: " + endpoint + " refused the connection";
    }
    return "I/O: exchange with " + endpoint + " failed (" + error.getClass().getSimpleName() + ")";
  }

  private static boolean has(Throwable error, Class<? extends Throwable> type) {
    return find(error, type) != null;
  }

  private static String find(Throwable error, Class<? extends Throwable> type) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (type.isInstance(cause)) {
        return cause.getClass().getSimpleName();
      }
    }
    return null;
  }
}
