package dev.vigil.kit;

/**
 * Makes text from outside safe to store in a {@code text} column, to print in one log line or on a
 * terminal: NUL, other control characters, lone surrogates and line separators become {@code
 * \\uXXXX} escapes, and the result is cut to a bound. PostgreSQL refuses NUL in {@code text}; a
 * reason built from a hostile key must never be what stops intake.
 */
public final class SafeText {
  /** Upper bound of a stored reason, in characters (before the ellipsis). */
  public static final int MAX_REASON = 500;

  private SafeText() {}

  /** {@code text} with every unsafe character escaped, at most {@code max} characters kept. */
  public static String text(String text, int max) {
    if (text == null) {
      return null;
    }
    StringBuilder out = new StringBuilder(Math.min(text.length(), max) + 16);
    for (int i = 0; i < text.length(); i++) {
      if (out.length() >= max) {
        return out.append('…').toString();
      }
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        out.append(c).append(text.charAt(++i));
      } else if (unsafe(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** Whether {@code text} holds a surrogate that is not part of a valid pair. */
  public static boolean hasLoneSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
          i++;
        } else {
          return true;
        }
      } else if (Character.isLowSurrogate(c)) {
        return true;
      }
    }
    return false;
  }

  private static boolean unsafe(char c) {
    return c < 0x20
        || (c >= 0x7f && c <= 0x9f)
        || Character.isSurrogate(c)
        || c == '\u2028'
        || c == '\u2029'
        || c == '\ufeff';
  }
}
