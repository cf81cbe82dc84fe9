package dev.vigil.monitor.target;

import java.util.Locale;

/** How a target's results arrive. */
public enum TargetKind {
  /** Probed over HTTP by the monitor's scheduler. */
  HTTP,
  /** Checked by an external checker that pushes results through the API. */
  PUSH;

  public String column() {
    return name().toLowerCase(Locale.ROOT);
  }

  static TargetKind fromColumn(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }
}
