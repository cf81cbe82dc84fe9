package dev.vigil.monitor.probe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.monitor.targets.Checks;
import dev.vigil.monitor.targets.JsonExpectation;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * The conditions on an HTTP response beyond its status: body contains / does not contain, JSON
 * pointer equals, and the served certificate's remaining validity. Each failure is one short
 * reason; text from the response is quoted shortened and with control characters replaced, since
 * the target is as hostile as any other input.
 */
final class ResponseChecks {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int QUOTE = 60;

  private ResponseChecks() {}

  /** Why the body fails the conditions of {@code checks}, or null when it passes. */
  static String bodyProblem(Checks checks, BoundedBody.Body body, long limit) {
    if (!checks.needsBody()) {
      return null;
    }
    if (body.failed()) {
      return "body: broke off before its end";
    }
    String text = new String(body.bytes(), StandardCharsets.UTF_8);
    String within = body.truncated() ? " in its first " + limit + " bytes" : "";
    for (String wanted : checks.bodyContains()) {
      if (!text.contains(wanted)) {
        return "body: does not contain " + quote(wanted) + within;
      }
    }
    for (String unwanted : checks.bodyNotContains()) {
      if (text.contains(unwanted)) {
        return "body: contains " + quote(unwanted);
      }
    }
    if (checks.json().isEmpty()) {
      return null;
    }
    if (body.truncated()) {
      return "body: longer than " + limit + " bytes, JSON not checked";
    }
    JsonNode root;
    try {
      root = JSON.readTree(body.bytes());
    } catch (JsonProcessingException e) {
      return "body: not JSON";
    } catch (java.io.IOException e) {
      return "body: not JSON";
    }
    if (root == null || root.isMissingNode()) {
      return "body: empty, JSON expected";
    }
    for (JsonExpectation expectation : checks.json()) {
      JsonNode actual = root.at(expectation.pointer());
      if (!expectation.matches(actual)) {
        return "body: "
            + quote(expectation.pointer().toString())
            + (actual.isMissingNode() ? " is missing" : " is " + shorten(actual.toString()))
            + ", expected "
            + shorten(expectation.expected().toString());
      }
    }
    return null;
  }

  /**
   * Why the served certificate fails {@code tlsExpiryDays}, or null when it passes (or the check is
   * not asked for).
   */
  static String tlsProblem(
      Checks checks, Optional<SSLSession> session, Instant now, String endpoint) {
    if (checks.tlsExpiryDays() == null) {
      return null;
    }
    Certificate[] chain;
    try {
      chain =
          session
              .orElseThrow(() -> new SSLPeerUnverifiedException("no TLS session"))
              .getPeerCertificates();
    } catch (SSLPeerUnverifiedException e) {
      return "TLS: no certificate from " + endpoint + " to check";
    }
    if (chain.length == 0 || !(chain[0] instanceof X509Certificate leaf)) {
      return "TLS: no certificate from " + endpoint + " to check";
    }
    Instant notAfter = leaf.getNotAfter().toInstant();
    Duration left = Duration.between(now, notAfter);
    if (left.compareTo(Duration.ofDays(checks.tlsExpiryDays())) >= 0) {
      return null;
    }
    return "TLS: certificate of "
        + endpoint
        + " expires in "
        + Math.max(0, left.toDays())
        + " days ("
        + notAfter.atOffset(ZoneOffset.UTC).toLocalDate()
        + "), within "
        + checks.tlsExpiryDays();
  }

  private static String quote(String text) {
    return "\"" + shorten(text) + "\"";
  }

  /** At most {@value #QUOTE} characters, control characters as '?'. */
  static String shorten(String text) {
    String cut = text.length() > QUOTE ? text.substring(0, QUOTE) + "…" : text;
    StringBuilder out = new StringBuilder(cut.length());
    for (int i = 0; i < cut.length(); i++) {
      char c = cut.charAt(i);
      out.append(c < 0x20 || c == 0x7f ? '?' : c);
    }
    return out.toString();
  }
}
