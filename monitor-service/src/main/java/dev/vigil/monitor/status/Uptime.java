package dev.vigil.monitor.status;

/**
 * Uptime is the share of recorded checks that were UP, over the checks recorded in a window.
 * Percentages are cut (never rounded) to two decimals, so a window with one DOWN check among many
 * never shows 100.00%.
 */
record Uptime(long up, long down) {
  static final Uptime NONE = new Uptime(0, 0);

  Uptime {
    if (up < 0 || down < 0) {
      throw new IllegalArgumentException("check counts must not be negative: " + up + "/" + down);
    }
  }

  long total() {
    return up + down;
  }

  /** Hundredths of a percent, floored: 10000 = every check UP; -1 when there were no checks. */
  long basisPoints() {
    if (total() == 0) {
      return -1;
    }
    // In double, so the product cannot overflow; min() keeps any DOWN check below 100.00%.
    return up == total() ? 10_000 : Math.min(9_999, (long) Math.floor(up * 10_000.0 / total()));
  }

  /** {@code 99.95%}, or {@code no data} when the window has no checks. */
  String percent() {
    long basisPoints = basisPoints();
    if (basisPoints < 0) {
      return "no data";
    }
    return basisPoints / 100 + "." + String.format("%02d", basisPoints % 100) + "%";
  }

  /** A colour class for the value: good (≥ 99.9%), fair (≥ 99%), poor (≥ 95%), bad, none. */
  String grade() {
    long basisPoints = basisPoints();
    if (basisPoints < 0) {
      return "none";
    }
    if (basisPoints >= 9_990) {
      return "good";
    }
    if (basisPoints >= 9_900) {
      return "fair";
    }
    return basisPoints >= 9_500 ? "poor" : "bad";
  }
}
