package dev.vigil.monitor.targets;

import java.nio.file.Path;

/**
 * The value of a custom request header: written inline, or read from a file at each probe (so a
 * rotated secret is picked up without a restart). Its {@link #toString()} never shows an inline
 * value: header values are treated as secrets everywhere but on the wire to the target.
 *
 * @param value the inline value, or null when it comes from a file
 * @param file an absolute path whose content (stripped of surrounding white space) is the value, or
 *     null
 */
public record HeaderValue(String value, Path file) {
  public HeaderValue {
    if ((value == null) == (file == null)) {
      throw new IllegalArgumentException("a header value is either inline or from a file");
    }
    if (file != null && !file.isAbsolute()) {
      throw new IllegalArgumentException("valueFile must be an absolute path");
    }
  }

  /**
   * Whether {@code text} may be sent as a header value: no CR, LF, NUL or other control character
   * (tab allowed), so a value can never smuggle in another header.
   */
  public static boolean isAllowed(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        return false;
      }
    }
    return true;
  }

  public static HeaderValue inline(String value) {
    return new HeaderValue(value, null);
  }

  public static HeaderValue fromFile(Path file) {
    return new HeaderValue(null, file);
  }

  @Override
  public String toString() {
    return file == null ? "HeaderValue[<redacted>]" : "HeaderValue[valueFile=" + file + "]";
  }
}
