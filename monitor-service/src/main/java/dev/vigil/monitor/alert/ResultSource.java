package dev.vigil.monitor.alert;

import java.util.Locale;

/** Where a result came from; both go through the same {@link Recorder}. */
public enum ResultSource {
  /** A probe run by a monitor instance's scheduler. */
  PROBE,
  /** A result pushed through the API by an external checker. */
  PUSH,
  /** A DOWN recorded by the monitor because a push target did not report within its heartbeat. */
  HEARTBEAT;

  String column() {
    return name().toLowerCase(Locale.ROOT);
  }
}
