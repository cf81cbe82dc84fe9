package dev.vigil.monitor.probe;

import java.time.Duration;

/** Short human forms of durations for messages: {@code 2m}, {@code 2m30s}, {@code 1h5m}. */
final class Durations {
  private Durations() {}

  static String human(Duration duration) {
    long seconds = Math.max(0, duration.toSeconds());
    if (seconds == 0) {
      return Math.max(0, duration.toMillis()) + "ms";
    }
    StringBuilder text = new StringBuilder();
    long hours = seconds / 3600;
    long minutes = seconds % 3600 / 60;
    long rest = seconds % 60;
    if (hours > 0) {
      text.append(hours).append('h');
    }
    if (minutes > 0) {
      text.append(minutes).append('m');
    }
    if (rest > 0 || text.isEmpty()) {
      text.append(rest).append('s');
    }
    return text.toString();
  }
}
