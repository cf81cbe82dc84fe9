package dev.vigil.notifier.webhook;

import dev.vigil.contract.webhook.WebhookSecret;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Where one service's (or a family of services') alerts are POSTed.
 *
 * @param match {@code *} for the default route, {@code prefix*} for every service starting with
 *     prefix, or an exact service name
 * @param url absolute http(s) URL; plain http only when {@code allowHttp}
 * @param bearerToken sent as {@code Authorization: Bearer}, or null; never shown by toString
 * @param secrets signing secrets, at least one; several while rotating
 */
public record WebhookRoute(
    String match, URI url, String bearerToken, List<WebhookSecret> secrets, boolean allowHttp) {

  public WebhookRoute {
    Objects.requireNonNull(match, "route match is missing");
    Objects.requireNonNull(url, "route URL is missing");
    secrets = List.copyOf(Objects.requireNonNull(secrets, "route secrets are missing"));
    if (!match.equals("*") && !match.matches("[a-z0-9][a-z0-9_-]{0,49}\\*?")) {
      throw new IllegalArgumentException(
          "route match '"
              + match
              + "' must be *, a service name or a service-name prefix ending in *");
    }
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
    if (!url.isAbsolute() || url.getHost() == null) {
      throw new IllegalArgumentException("webhook URL " + redacted(url) + " must be absolute");
    }
    if (!scheme.equals("https") && !(scheme.equals("http") && allowHttp)) {
      throw new IllegalArgumentException(
          "webhook URL "
              + redacted(url)
              + " must use https (set VIGIL_WEBHOOK_ALLOW_HTTP=true for plain http, e.g. locally)");
    }
    if (secrets.isEmpty()) {
      throw new IllegalArgumentException("route '" + match + "' has no signing secret");
    }
    if (bearerToken != null && bearerToken.isBlank()) {
      bearerToken = null;
    }
  }

  /** Whether this route serves {@code service}. */
  public boolean matches(String service) {
    if (match.equals("*")) {
      return true;
    }
    if (match.endsWith("*")) {
      return service.startsWith(match.substring(0, match.length() - 1));
    }
    return service.equals(match);
  }

  /** Specificity: exact names beat prefixes, longer prefixes beat shorter ones. */
  int specificity() {
    if (match.equals("*")) {
      return 0;
    }
    return match.endsWith("*") ? match.length() : 1000;
  }

  /**
   * Scheme, host and port only, safe for logs: user info, path and query are left out because some
   * receivers (chat webhooks) carry their credential in the path.
   */
  public static String redacted(URI url) {
    return url.getScheme()
        + "://"
        + url.getHost()
        + (url.getPort() < 0 ? "" : ":" + url.getPort())
        + "/…";
  }

  @Override
  public String toString() {
    return "WebhookRoute[match="
        + match
        + ", url="
        + redacted(url)
        + ", bearerToken="
        + (bearerToken == null ? "none" : "<redacted>")
        + ", secrets="
        + secrets.size()
        + "]";
  }
}
