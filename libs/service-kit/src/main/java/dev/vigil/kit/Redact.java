package dev.vigil.kit;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renders configuration values for logs and {@code toString()} without the parts that may hold
 * secrets: the user-info of a URL ({@code user:password@}) and its query string ({@code
 * ?password=…}).
 */
public final class Redact {
  private static final Pattern URL = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*:(//)?[^\\s;,]+");
  private static final Pattern WHOLE_URL =
      Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*:[^\\s/?]*[/?].*", Pattern.DOTALL);
  private static final Pattern USER_INFO = Pattern.compile("//[^/@?#]*@");

  private Redact() {}

  /** A URL without its query string: JDBC URLs may carry {@code ?password=…} as a parameter. */
  public static String withoutQuery(String url) {
    if (url == null) {
      return null;
    }
    int query = url.indexOf('?');
    return query < 0 ? url : url.substring(0, query) + "?…";
  }

  /** {@code url} without query string and without user-info ({@code //user:pw@host}). */
  public static String url(String url) {
    if (url == null) {
      return null;
    }
    return USER_INFO.matcher(withoutQuery(url)).replaceFirst("//…@");
  }

  /**
   * {@code text} with every URL in it redacted as by {@link #url}; a value that starts as a URL is
   * redacted whole, so a query string holding {@code ;}, {@code ,} or spaces is cut off entirely.
   */
  public static String urls(String text) {
    if (text == null || !text.contains(":")) {
      return text;
    }
    if (WHOLE_URL.matcher(text).matches()) {
      return url(text);
    }
    Matcher matcher = URL.matcher(text);
    StringBuilder out = new StringBuilder();
    while (matcher.find()) {
      String found = matcher.group();
      String redacted = found.contains("//") || found.contains("?") ? url(found) : found;
      matcher.appendReplacement(out, Matcher.quoteReplacement(redacted));
    }
    matcher.appendTail(out);
    return out.toString();
  }
}
