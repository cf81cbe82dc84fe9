package dev.vigil.contract.webhook;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Standard Webhooks signatures: {@code v1,} + base64(HMAC-SHA256(key, id + "." + timestamp + "." +
 * body)). With several secrets (rotation) the header carries one signature per secret, separated by
 * spaces; a receiver accepts the request if any one of them matches one of its secrets.
 */
public final class WebhookSignature {
  public static final String HEADER_ID = "webhook-id";
  public static final String HEADER_TIMESTAMP = "webhook-timestamp";
  public static final String HEADER_SIGNATURE = "webhook-signature";

  private WebhookSignature() {}

  /** The {@code webhook-signature} header value for these secrets. */
  public static String sign(List<WebhookSecret> secrets, String id, long timestamp, byte[] body) {
    List<String> parts = new ArrayList<>(secrets.size());
    for (WebhookSecret secret : secrets) {
      parts.add("v1," + Base64.getEncoder().encodeToString(hmac(secret, id, timestamp, body)));
    }
    return String.join(" ", parts);
  }

  /** Why a request is not genuine. */
  public enum Verdict {
    VALID,
    MISSING_HEADERS,
    BAD_TIMESTAMP,
    STALE_TIMESTAMP,
    BAD_SIGNATURE
  }

  /**
   * Checks the headers against the body: the timestamp within {@code tolerance} of {@code now} and
   * at least one {@code v1} signature matching one of {@code secrets} (constant-time compare).
   */
  public static Verdict verify(
      List<WebhookSecret> secrets,
      String id,
      String timestamp,
      String signatureHeader,
      byte[] body,
      Instant now,
      Duration tolerance) {
    if (id == null || timestamp == null || signatureHeader == null) {
      return Verdict.MISSING_HEADERS;
    }
    long seconds;
    try {
      seconds = Long.parseLong(timestamp.strip());
    } catch (NumberFormatException e) {
      return Verdict.BAD_TIMESTAMP;
    }
    if (Math.abs(now.getEpochSecond() - seconds) > tolerance.toSeconds()) {
      return Verdict.STALE_TIMESTAMP;
    }
    for (WebhookSecret secret : secrets) {
      byte[] expected = hmac(secret, id, seconds, body);
      for (String candidate : signatureHeader.strip().split("\\s+")) {
        if (!candidate.startsWith("v1,")) {
          continue;
        }
        byte[] given;
        try {
          given = Base64.getDecoder().decode(candidate.substring(3));
        } catch (IllegalArgumentException e) {
          continue;
        }
        if (MessageDigest.isEqual(expected, given)) {
          return Verdict.VALID;
        }
      }
    }
    return Verdict.BAD_SIGNATURE;
  }

  private static byte[] hmac(WebhookSecret secret, String id, long timestamp, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.key(), "HmacSHA256"));
      mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
      return mac.doFinal(body);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  }
}
