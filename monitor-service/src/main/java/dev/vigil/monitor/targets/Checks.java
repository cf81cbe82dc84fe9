package dev.vigil.monitor.targets;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a probe sends beyond a bare request and what it demands beyond an accepted status code.
 * Every field is optional; {@link #NONE} is a plain status-code check. Parsed (and validated) by
 * {@link CheckFields}, which is also how the stored form is read back.
 *
 * @param headers extra request headers, in order (HTTP only)
 * @param body the request body (HTTP POST, PUT or PATCH only), or null
 * @param maxLatency slower than this is DOWN (any probed kind), or null
 * @param bodyContains strings the response body must contain (HTTP)
 * @param bodyNotContains strings the response body must not contain (HTTP)
 * @param json JSON pointer conditions on the response body (HTTP)
 * @param tlsExpiryDays DOWN when the served certificate expires within this many days (https), or
 *     null
 * @param expectAddresses addresses a {@code dns} target's name must resolve to (all of them)
 */
public record Checks(
    Map<String, HeaderValue> headers,
    String body,
    Duration maxLatency,
    List<String> bodyContains,
    List<String> bodyNotContains,
    List<JsonExpectation> json,
    Integer tlsExpiryDays,
    List<InetAddress> expectAddresses) {

  /** No extra request shape and no condition beyond the status code. */
  public static final Checks NONE =
      new Checks(Map.of(), null, null, List.of(), List.of(), List.of(), null, List.of());

  public Checks {
    headers = Map.copyOf(Objects.requireNonNull(headers, "headers"));
    bodyContains = List.copyOf(bodyContains);
    bodyNotContains = List.copyOf(bodyNotContains);
    json = List.copyOf(json);
    expectAddresses = List.copyOf(expectAddresses);
    if (maxLatency != null && (maxLatency.isNegative() || maxLatency.isZero())) {
      throw new IllegalArgumentException("maxLatency must be positive");
    }
    if (tlsExpiryDays != null && tlsExpiryDays < 1) {
      throw new IllegalArgumentException("tlsExpiryDays must be at least 1");
    }
  }

  /** Whether the response body must be read and kept to decide the verdict. */
  public boolean needsBody() {
    return !bodyContains.isEmpty() || !bodyNotContains.isEmpty() || !json.isEmpty();
  }

  /**
   * These checks as they are written in a definition, with inline header values replaced by {@code
   * <redacted>} (header values are treated as secrets: API responses never show them).
   */
  public ObjectNode redactedJson() {
    return CheckForm.write(this, true);
  }

  @Override
  public String toString() {
    // Header values may be secrets: only the names are shown.
    return "Checks[headers="
        + headers.keySet()
        + ", body="
        + (body == null ? "none" : body.length() + " chars")
        + ", maxLatency="
        + maxLatency
        + ", bodyContains="
        + bodyContains
        + ", bodyNotContains="
        + bodyNotContains
        + ", json="
        + json
        + ", tlsExpiryDays="
        + tlsExpiryDays
        + ", expectAddresses="
        + expectAddresses
        + "]";
  }
}
