package dev.vigil.contract.webhook;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * A Standard Webhooks signing secret: {@code whsec_} followed by base64 key bytes. {@link
 * #toString()} never shows the key.
 */
public final class WebhookSecret {
  private static final String PREFIX = "whsec_";
  private final byte[] key;

  private WebhookSecret(byte[] key) {
    this.key = key;
  }

  /**
   * Parses {@code whsec_<base64>}.
   *
   * @throws IllegalArgumentException without echoing the secret
   */
  public static WebhookSecret parse(String text) {
    if (text == null || !text.startsWith(PREFIX)) {
      throw new IllegalArgumentException("a webhook secret must start with whsec_");
    }
    byte[] key;
    try {
      key = Base64.getDecoder().decode(text.substring(PREFIX.length()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("a webhook secret must be whsec_ followed by base64");
    }
    if (key.length < 16) {
      throw new IllegalArgumentException("a webhook secret must hold at least 16 bytes");
    }
    return new WebhookSecret(key);
  }

  /** Parses a list separated by commas or whitespace; empty text gives an empty list. */
  public static List<WebhookSecret> parseList(String text) {
    List<WebhookSecret> secrets = new ArrayList<>();
    if (text == null) {
      return secrets;
    }
    for (String part : text.split("[,\\s]+")) {
      if (!part.isEmpty()) {
        secrets.add(parse(part));
      }
    }
    return List.copyOf(secrets);
  }

  /** A new random secret in {@code whsec_} form (for tests and the demo). */
  public static String generate() {
    byte[] key = new byte[24];
    new java.security.SecureRandom().nextBytes(key);
    return PREFIX + Base64.getEncoder().encodeToString(key);
  }

  byte[] key() {
    return key.clone();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof WebhookSecret that && Arrays.equals(key, that.key);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(key);
  }

  @Override
  public String toString() {
    return "whsec_<redacted>";
  }
}
