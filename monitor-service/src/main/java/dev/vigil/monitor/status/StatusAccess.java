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

  /** Required to read at all; null: anyone may read. */
  private final BearerToken token;

  /** The API token, which shows every detail on an open page; null: none configured. */
  private final BearerToken apiToken;

  /** Whether readers without the token see DOWN reasons, silence reasons and who acknowledged. */
  private final boolean publicDetails;

  private StatusAccess(BearerToken token, BearerToken apiToken, boolean publicDetails) {
    this.token = token;
    this.apiToken = apiToken;
    this.publicDetails = publicDetails;
  }

  /** Everyone may read and sees every detail. */
  public static StatusAccess open() {
    return new StatusAccess(null, null, true);
  }

  /** Only requests carrying {@code apiToken} may read (and see every detail). */
  public static StatusAccess token(String apiToken) {
    BearerToken token = new BearerToken(apiToken);
    return new StatusAccess(token, token, true);
  }

  /**
   * From the settings {@code VIGIL_MONITOR_STATUS_PAGE} ({@code public} or {@code token}) and
   * {@code VIGIL_MONITOR_PUBLIC_DETAILS} ({@code publicDetails}: whether an open page shows DOWN
   * reasons, silence reasons and who acknowledged to readers without the token).
   */
  public static StatusAccess of(String setting, String apiToken, boolean publicDetails) {
    return switch (setting) {
      case "public" -> new StatusAccess(null, new BearerToken(apiToken), publicDetails);
      case "token" -> token(apiToken);
      default ->
          throw new IllegalArgumentException(
              "status page access must be public or token: " + setting);
    };
  }

  /** Whether a request with this {@code Authorization} header (may be null) may read. */
  boolean allows(String authorization) {
    return token == null || presents(token, authorization);
  }

  /**
   * Whether a request with this {@code Authorization} header (may be null), already allowed to
   * read, sees the details: DOWN reasons (which name hosts, ports and response values), silence
   * reasons and who set them, and who acknowledged.
   */
  boolean details(String authorization) {
    return publicDetails
        || token != null
        || (apiToken != null && presents(apiToken, authorization));
  }

  /**
   * {@code public} when the answer is the same for anyone (shared caches may keep it), else {@code
   * private}: on a token page, and on an open page answered with details only this token sees.
   */
  String cacheScope(boolean details) {
    return token == null && (publicDetails || !details) ? "public" : "private";
  }

  private static boolean presents(BearerToken token, String authorization) {
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
}
