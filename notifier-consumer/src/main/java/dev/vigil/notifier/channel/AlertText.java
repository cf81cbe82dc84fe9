package dev.vigil.notifier.channel;

import dev.vigil.contract.AlertEvent;
import java.time.Duration;

/** The short human texts every channel uses, so they say the same thing everywhere. */
final class AlertText {
  private AlertText() {}

  /** One line: what happened to which service (plain text, not escaped). */
  static String summary(AlertEvent event) {
    String error = event.lastError() == null ? "" : ": " + event.lastError();
    return switch (event.kind()) {
      case FAILED ->
          event.service() + " is DOWN (" + event.consecutiveFailures() + " failed checks)" + error;
      case RECOVERED ->
          event.service()
              + " RECOVERED after "
              + human(event.downtime())
              + (event.resolution() == null ? "" : " (" + event.resolution() + ")");
      case REMINDER -> event.service() + " is still DOWN, for " + human(event.downtime()) + error;
    };
  }

  /** {@code 2d 3h}, {@code 1h 5m}, {@code 4m 10s}, {@code 12s}. */
  static String human(Duration duration) {
    if (duration == null) {
      return "unknown";
    }
    long s = Math.max(0, duration.toSeconds());
    if (s >= 86_400) {
      return s / 86_400 + "d " + (s % 86_400) / 3600 + "h";
    }
    if (s >= 3600) {
      return s / 3600 + "h " + (s % 3600) / 60 + "m";
    }
    if (s >= 60) {
      return s / 60 + "m " + s % 60 + "s";
    }
    return s + "s";
  }
}
