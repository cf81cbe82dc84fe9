package dev.vigil.kit.http;

import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Objects;

/**
 * A shared secret presented as {@code Authorization: Bearer <token>}. The comparison takes the same
 * time wherever the presented token differs ({@link MessageDigest#isEqual}), so the token cannot be
 * guessed byte by byte from response times. The token itself is never logged or shown.
 */
public final class BearerToken {
  private static final String PREFIX = "Bearer ";

  private final byte[] expected;

  /**
   * @throws IllegalArgumentException if {@code token} is blank: an empty token would accept a
   *     request that presents none
   */
  public BearerToken(String token) {
    Objects.requireNonNull(token, "token");
    if (token.isBlank()) {
      throw new IllegalArgumentException("a bearer token must not be blank");
    }
    this.expected = token.getBytes(StandardCharsets.UTF_8);
  }

  /** Whether the request's {@code Authorization} header carries this token. */
  public boolean presentedBy(Context ctx) {
    return matches(ctx.header("Authorization"));
  }

  /** Whether an {@code Authorization} header value (may be null) carries this token. */
  public boolean matches(String authorizationHeader) {
    byte[] presented =
        authorizationHeader != null && authorizationHeader.startsWith(PREFIX)
            ? authorizationHeader
                .substring(PREFIX.length())
                .strip()
                .getBytes(StandardCharsets.UTF_8)
            : new byte[0];
    return MessageDigest.isEqual(presented, expected);
  }

  @Override
  public String toString() {
    return "BearerToken[<secret>]";
  }
}
