package dev.vigil.monitor.alert;

import java.util.Locale;

/** Where a result came from; both go through the same {@link Recorder}. */
public enum ResultSource {
  /** A probe run by a monitor instance's scheduler. */
  PROBE,
  /** A result pushed through the API by an external checker. */
  PUSH;

  String column() {
    return name().toLowerCase(Locale.ROOT);
  }
}
