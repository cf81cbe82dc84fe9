package dev.vigil.kit;

/**
 * Renders configuration values for logs and {@code toString()} without the parts that may hold
 * secrets.
 */
public final class Redact {
  private Redact() {}

  /** A URL without its query string: JDBC URLs may carry {@code ?password=…} as a parameter. */
  public static String withoutQuery(String url) {
    if (url == null) {
      return null;
    }
    int query = url.indexOf('?');
    return query < 0 ? url : url.substring(0, query) + "?…";
  }
}
