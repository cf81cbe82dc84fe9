package dev.vigil.notifier.delivery;

import java.time.Duration;

/** What one attempt achieved, decided from the HTTP status or the failure. */
sealed interface Outcome {
  /** A 2xx answer. */
  record Delivered(int status) implements Outcome {}

  /**
   * Worth trying again: 408, 429, 5xx, timeouts, connection errors.
   *
   * @param status the HTTP status, or 0 when no response arrived
   * @param retryAfter the receiver's Retry-After, or null
   */
  record Retryable(int status, String error, Duration retryAfter) implements Outcome {}

  /** The channel deliberately sends nothing for this event (e.g. PagerDuty on REMINDER). */
  record NotSent(String reason) implements Outcome {}

  /** Will never succeed as is: other 4xx, 3xx (redirects are not followed), 1xx. */
  record Permanent(int status, String error) implements Outcome {}

  /** Classifies an HTTP status (with its Retry-After header value, possibly null). */
  static Outcome ofStatus(int status, Duration retryAfter) {
    if (status >= 200 && status < 300) {
      return new Delivered(status);
    }
    if (status == 408 || status == 429 || status >= 500) {
      return new Retryable(status, "HTTP " + status, retryAfter);
    }
    if (status >= 300 && status < 400) {
      return new Permanent(status, "HTTP " + status + " redirect (redirects are never followed)");
    }
    return new Permanent(status, "HTTP " + status);
  }
}
