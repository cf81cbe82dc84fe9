package dev.vigil.kit.tracing;

import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import java.util.Optional;

/**
 * A W3C Trace Context {@code traceparent} value (version {@code 00}): {@code
 * 00-<trace-id>-<parent-id>-<flags>}, lower-case hex, neither id all zeros.
 *
 * <p>Values from outside (a pusher's header, a Kafka record header, a database column) are hostile:
 * {@link #parse} returns empty for anything that is not a valid value, and the caller starts a new
 * trace instead. Following the specification, a higher version than {@code 00} is read by its first
 * four fields when what follows them starts with {@code -}; version {@code ff} is invalid. The
 * value this class writes is always version {@code 00}.
 *
 * @param traceId 32 lower-case hex digits, not all zero
 * @param spanId 16 lower-case hex digits, not all zero (the parent's span id)
 * @param sampled the {@code sampled} trace flag
 */
public record TraceParent(String traceId, String spanId, boolean sampled) {
  /** The length of a version-00 value. */
  public static final int LENGTH = 55;

  /** Longest header value looked at; anything longer is refused before it is read. */
  static final int MAX_LENGTH = 512;

  public TraceParent {
    if (!isHex(traceId, 0, 32, traceId == null ? 0 : traceId.length())
        || traceId.length() != 32
        || allZero(traceId)) {
      throw new IllegalArgumentException("trace id must be 32 lower-case hex digits, not all 0");
    }
    if (!isHex(spanId, 0, 16, spanId == null ? 0 : spanId.length())
        || spanId.length() != 16
        || allZero(spanId)) {
      throw new IllegalArgumentException("span id must be 16 lower-case hex digits, not all 0");
    }
  }

  /**
   * Reads a {@code traceparent} header value.
   *
   * @return the value, or empty when it is missing or not a valid traceparent
   */
  public static Optional<TraceParent> parse(String value) {
    if (value == null || value.length() < LENGTH || value.length() > MAX_LENGTH) {
      return Optional.empty();
    }
    int len = value.length();
    if (!isHex(value, 0, 2, len)
        || value.startsWith("ff")
        || value.charAt(2) != '-'
        || !isHex(value, 3, 32, len)
        || value.charAt(35) != '-'
        || !isHex(value, 36, 16, len)
        || value.charAt(52) != '-'
        || !isHex(value, 53, 2, len)) {
      return Optional.empty();
    }
    boolean version00 = value.startsWith("00");
    if (version00 ? len != LENGTH : len > LENGTH && value.charAt(LENGTH) != '-') {
      return Optional.empty();
    }
    String traceId = value.substring(3, 35);
    String spanId = value.substring(36, 52);
    if (allZero(traceId) || allZero(spanId)) {
      return Optional.empty();
    }
    int flags = Integer.parseInt(value.substring(53, 55), 16);
    return Optional.of(new TraceParent(traceId, spanId, (flags & 1) == 1));
  }

  /** The {@code traceparent} of a span, or empty if its context is not valid (a no-op span). */
  public static Optional<TraceParent> of(SpanContext context) {
    if (context == null || !context.isValid()) {
      return Optional.empty();
    }
    return Optional.of(
        new TraceParent(context.getTraceId(), context.getSpanId(), context.isSampled()));
  }

  /** This value as the remote parent of a span that continues the trace. */
  public SpanContext asRemoteParent() {
    return SpanContext.createFromRemoteParent(
        traceId,
        spanId,
        sampled ? TraceFlags.getSampled() : TraceFlags.getDefault(),
        TraceState.getDefault());
  }

  /** The header value, version {@code 00}. */
  @Override
  public String toString() {
    return "00-" + traceId + "-" + spanId + (sampled ? "-01" : "-00");
  }

  private static boolean isHex(String s, int from, int count, int len) {
    if (s == null || from + count > len) {
      return false;
    }
    for (int i = from; i < from + count; i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  private static boolean allZero(String hex) {
    for (int i = 0; i < hex.length(); i++) {
      if (hex.charAt(i) != '0') {
        return false;
      }
    }
    return true;
  }
}
