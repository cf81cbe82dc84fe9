package dev.vigil.notifier.channel;

import java.net.URI;
import java.util.Locale;

/**
 * Links to the monitor's public pages, from {@code VIGIL_NOTIFIER_PUBLIC_URL}; absent when it is
 * not set. The base is checked at start (absolute http(s), no characters Slack's link syntax or
 * JSON would need escaped), service names are normalized, so the links are safe as they are.
 */
public record PublicLinks(URI base) {
  public static final PublicLinks NONE = new PublicLinks(null);

  public PublicLinks {
    if (base != null) {
      String text = base.toString();
      String scheme = base.getScheme() == null ? "" : base.getScheme().toLowerCase(Locale.ROOT);
      if (!base.isAbsolute()
          || base.getHost() == null
          || !(scheme.equals("http") || scheme.equals("https"))) {
        throw new IllegalArgumentException("public URL must be an absolute http(s) URL");
      }
      if (!text.matches("[A-Za-z0-9:/._~%+\\-]+")) {
        throw new IllegalArgumentException(
            "public URL may only hold letters, digits and :/._~%+- (no query or fragment)");
      }
      base = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
    }
  }

  /** Parses a setting value; blank means none. */
  public static PublicLinks of(String value) {
    return value == null || value.isBlank() ? NONE : new PublicLinks(URI.create(value.strip()));
  }

  public boolean present() {
    return base != null;
  }

  /** The status page, or null. */
  public String statusPage() {
    return base == null ? null : base + "/status";
  }

  /** The monitor API's view of one service, or null. */
  public String service(String service) {
    return base == null ? null : base + "/api/services/" + service;
  }
}
