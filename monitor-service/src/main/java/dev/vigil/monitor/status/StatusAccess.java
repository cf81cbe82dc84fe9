package dev.vigil.monitor.status;

import dev.vigil.kit.http.BearerToken;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Who may read the status page: anyone ({@link #open()}), or whoever presents the API token, as
 * {@code Authorization: Bearer <token>} (scripts) or as the password of HTTP Basic authentication
 * with any user name (browsers ask for it). Both compare in constant time.
 */
public final class StatusAccess {
  /** The challenge sent with 401, so a browser asks for the token. */
  static final String CHALLENGE = "Basic realm=\"Vigil status\", charset=\"UTF-8\"";

  private static final String BASIC = "Basic ";

  private final BearerToken token;

  private StatusAccess(BearerToken token) {
    this.token = token;
  }

  /** Everyone may read. */
  public static StatusAccess open() {
    return new StatusAccess(null);
  }

  /** Only requests carrying {@code apiToken} may read. */
  public static StatusAccess token(String apiToken) {
    return new StatusAccess(new BearerToken(apiToken));
  }

  /** From the setting {@code VIGIL_MONITOR_STATUS_PAGE}: {@code public} or {@code token}. */
  public static StatusAccess of(String setting, String apiToken) {
    return switch (setting) {
      case "public" -> open();
      case "token" -> token(apiToken);
      default ->
          throw new IllegalArgumentException(
              "status page access must be public or token: " + setting);
    };
  }

  /** Whether a request with this {@code Authorization} header (may be null) may read. */
  boolean allows(String authorization) {
    if (token == null) {
      return true;
    }
    if (authorization == null || !authorization.regionMatches(true, 0, BASIC, 0, BASIC.length())) {
      return token.matches(authorization);
    }
    String password;
    try {
      String pair =
          new String(
              Base64.getDecoder().decode(authorization.substring(BASIC.length()).strip()),
              StandardCharsets.UTF_8);
      int colon = pair.indexOf(':');
      password = colon < 0 ? "" : pair.substring(colon + 1);
    } catch (IllegalArgumentException e) {
      password = "";
    }
    return token.matches("Bearer " + password);
  }

  /** {@code public} when anyone may read (shared caches may keep it), else {@code private}. */
  String cacheScope() {
    return token == null ? "public" : "private";
  }
}
