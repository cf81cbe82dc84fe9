package dev.vigil.monitor.targets;

import java.util.Locale;

/** How a target is checked. */
public enum TargetKind {
  /** Probed over HTTP by the monitor's scheduler. */
  HTTP,
  /** Checked by an external checker that pushes results through the API. */
  PUSH,
  /** Probed by opening a TCP connection within the timeout. */
  TCP,
  /** Probed by resolving a name, optionally to expected addresses. */
  DNS;

  public String column() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether the monitor's scheduler probes targets of this kind. */
  public boolean probed() {
    return this != PUSH;
  }

  static TargetKind fromColumn(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }
}
