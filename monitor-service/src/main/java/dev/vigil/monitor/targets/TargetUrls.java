package dev.vigil.monitor.targets;

import java.net.URI;
import java.util.Locale;

/**
 * What a target URL may look like per kind: {@code http(s)://host[:port]/path?query}, {@code
 * tcp://host:port} and {@code dns://name}. The scheme decides the kind when no {@code type} is
 * given.
 */
final class TargetUrls {
  private TargetUrls() {}

  /** The kind the scheme stands for; call only after {@link #problem} found none. */
  static TargetKind kindOf(URI url) {
    return switch (url.getScheme().toLowerCase(Locale.ROOT)) {
      case "tcp" -> TargetKind.TCP;
      case "dns" -> TargetKind.DNS;
      default -> TargetKind.HTTP;
    };
  }

  static String example(TargetKind kind) {
    return switch (kind) {
      case HTTP -> "an http:// or https:// url";
      case TCP -> "a url like tcp://db.internal:5432";
      case DNS -> "a url like dns://api.example.com";
      case PUSH -> "no url";
    };
  }

  /** Why {@code url} cannot be a target URL, or null when it can. */
  static String problem(URI url) {
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http")
        && !scheme.equals("https")
        && !scheme.equals("tcp")
        && !scheme.equals("dns")) {
      return "must start with http://, https://, tcp:// or dns://";
    }
    if (url.getHost() == null) {
      return "has no host";
    }
    int port = url.getPort();
    if (port == 0 || port > 65535) {
      return "port " + port + " is not between 1 and 65535";
    }
    if (scheme.equals("tcp") || scheme.equals("dns")) {
      boolean bare =
          url.getRawUserInfo() == null
              && url.getRawQuery() == null
              && url.getRawFragment() == null
              && (url.getRawPath() == null || url.getRawPath().isEmpty());
      if (!bare) {
        return "a "
            + scheme
            + ":// url has only a host"
            + (scheme.equals("tcp") ? " and a port" : "");
      }
      if (scheme.equals("tcp") && port < 0) {
        return "a tcp:// url needs a port, e.g. tcp://db.internal:5432";
      }
      if (scheme.equals("dns") && port >= 0) {
        return "a dns:// url has no port";
      }
    }
    return null;
  }
}
